import { randomUUID } from 'node:crypto';
import { LlamaChat, type ChatModelFunctions, type LlamaChatResponse, type LlamaGrammar } from 'node-llama-cpp';
import type { LlmDelta, LlmProvider, LlmRequest, LlmToolCall, LlmToolRequest } from '../llm.js';
import { ProviderError, ProviderNotConfigured } from '../provider-error.js';
import { toChatHistory, toFunctions } from './chat-history.js';
import { ChunkQueue } from '../chunk-queue.js';
import {
  defaultLlamaModelOptions,
  providerName,
  SharedLlamaModel,
  type LlamaModelOptions,
} from './shared-llama-model.js';

export { defaultLlamaModelOptions, type LlamaModelOptions } from './shared-llama-model.js';

/** Function calls one round may make before the round ends (a small model may not stop by itself). */
export const maxCallsPerRound = 4;

/**
 * A GGUF model in-process through node-llama-cpp (`local-llama`). Every LlamaLlm naming the same
 * file shares one loaded model and its bounded set of context sequences (SharedLlamaModel); a
 * request holds one sequence from its first token to its last and gives it back when it ends,
 * fails, is aborted or its reader stops. Tools go through the model's own function-calling format
 * (its chat wrapper): calls come back as LlmToolCalls, not run, and their results return as `tool`
 * messages in the next round. A request's `jsonSchema` becomes a grammar that holds the answer to
 * one JSON value of that schema, when no tools are offered (node-llama-cpp takes a grammar or
 * functions, not both). `timeoutMs` covers waiting for a sequence and generating.
 */
export class LlamaLlm implements LlmProvider {
  readonly label = providerName;
  private readonly options: LlamaModelOptions;

  constructor(
    /** The .gguf file. */
    readonly modelPath: string,
    options: Partial<LlamaModelOptions> = {},
    /**
     * Why the file must not be loaded (invalid: wrong size or sha256; not installed), asked before
     * every request; null when it may. By default only the loader's own check of the file.
     */
    private readonly problem: () => Promise<string | null> = async () => null,
  ) {
    this.options = { ...defaultLlamaModelOptions, ...options };
  }

  /**
   * The shared model, loading it on first use: a ProviderNotConfigured when the file is invalid
   * (it is never loaded then) or not installed, a ProviderError when it does not load.
   */
  async loaded(): Promise<SharedLlamaModel> {
    const problem = await this.problem();
    if (problem !== null) throw new ProviderNotConfigured(providerName, problem);
    return SharedLlamaModel.load(this.modelPath, this.options);
  }

  async complete(request: LlmRequest): Promise<string> {
    let text = '';
    for await (const chunk of this.stream(request)) text += chunk;
    return text;
  }

  async *stream(request: LlmRequest): AsyncIterable<string> {
    for await (const delta of this.generate(request, undefined)) if (delta.type === 'text') yield delta.text;
  }

  streamWithTools(request: LlmToolRequest): AsyncIterable<LlmDelta> {
    const offered = request.toolChoice === 'auto' && request.tools.length > 0;
    return this.generate(request, offered ? toFunctions(request.tools) : undefined);
  }

  private async *generate(request: LlmRequest, functions: ChatModelFunctions | undefined): AsyncIterable<LlmDelta> {
    const timeout = AbortSignal.timeout(request.timeoutMs);
    // Ends the generation when the reader stops early (break, barge-in through `return()`).
    const stop = new AbortController();
    const signal = AbortSignal.any([timeout, stop.signal, ...(request.signal ? [request.signal] : [])]);
    const fail = (err: unknown) => failure(err, request, timeout);

    const shared = await untilAborted(this.loaded(), signal).catch((err: unknown) => {
      throw fail(err);
    });
    let grammar: LlamaGrammar | undefined;
    if (request.jsonSchema !== undefined && functions === undefined)
      grammar = await shared.jsonGrammar(request.jsonSchema).catch((err: unknown) => {
        throw fail(err);
      });
    const lease = await shared.pool.acquire(signal).catch((err: unknown) => {
      throw fail(err);
    });
    const chat = new LlamaChat({ contextSequence: lease.item, chatWrapper: shared.chatWrapper });
    const chunks = new ChunkQueue();
    let result: LlamaChatResponse<ChatModelFunctions> | undefined;
    const history = toChatHistory(request.messages);
    const generating = chat
      .generateResponse<ChatModelFunctions>(history, {
        onTextChunk: (text) => {
          if (text !== '') chunks.push(text);
        },
        signal,
        maxTokens: request.maxTokens,
        temperature: request.temperature,
        ...(grammar === undefined ? { functions, maxParallelFunctionCalls: maxCallsPerRound } : { grammar }),
      })
      .then(
        (response) => {
          result = response;
          chunks.end();
        },
        (err: unknown) => chunks.fail(err),
      );
    try {
      for await (const text of chunks) yield { type: 'text', text };
      const calls = (result?.functionCalls ?? []).map((call): LlmToolCall => ({
        id: `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
        name: call.functionName,
        arguments: JSON.stringify(call.params ?? {}),
      }));
      if (calls.length > 0) yield { type: 'tool_calls', calls };
    } catch (err) {
      throw fail(err);
    } finally {
      stop.abort();
      await generating;
      chat.dispose({ disposeSequence: false });
      lease.release();
    }
  }
}

/** `promise`, or the signal's reason as soon as it aborts (the work itself goes on: a model load is shared). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The caller's abort passes through as its reason; a timeout or a llama.cpp failure becomes a ProviderError. */
function failure(err: unknown, request: LlmRequest, timeout: AbortSignal): unknown {
  if (request.signal?.aborted) return request.signal.reason ?? err;
  if (err instanceof ProviderError) return err;
  if (timeout.aborted)
    return new ProviderError(providerName, `timed out after ${request.timeoutMs} ms`, { cause: err });
  const why = err instanceof Error ? err.message : String(err);
  return new ProviderError(providerName, `generation failed: ${why}`, { cause: err });
}
