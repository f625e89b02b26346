import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ResponseFormatJSONSchema } from 'openai/resources/shared';
import type { ChatMessage, LlmDelta, LlmProvider, LlmRequest, LlmToolCall, LlmToolRequest } from '../llm.js';
import { openAiClient, type OpenAiEndpoint } from './client.js';
import { assertConfigured } from './openai-error.js';
import { ProviderError } from '../provider-error.js';

/** Chat completions on any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp, …). */
export class OpenAiLlm implements LlmProvider {
  readonly label = 'openai';

  constructor(private readonly endpoint: OpenAiEndpoint) {}

  async complete(request: LlmRequest): Promise<string> {
    assertConfigured(this.endpoint);
    const completion = await openAiClient(this.endpoint).chat.completions.create(
      {
        model: request.model,
        messages: request.messages.map(toOpenAi),
        temperature: request.temperature,
        max_tokens: request.maxTokens,
        ...responseFormat(request),
      },
      { signal: request.signal, timeout: request.timeoutMs },
    );
    const content = completion.choices[0]?.message.content;
    if (typeof content !== 'string') throw new ProviderError('openai', 'the model returned no text');
    return content;
  }

  async *stream(request: LlmRequest): AsyncIterable<string> {
    assertConfigured(this.endpoint);
    const stream = await openAiClient(this.endpoint).chat.completions.create(
      {
        model: request.model,
        messages: request.messages.map(toOpenAi),
        temperature: request.temperature,
        max_tokens: request.maxTokens,
        ...responseFormat(request),
        stream: true,
      },
      { signal: request.signal, timeout: request.timeoutMs },
    );
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta.content;
      if (delta) yield delta;
    }
    // The SDK ends an aborted stream quietly: what came is cut short, not the whole answer.
    request.signal?.throwIfAborted();
  }

  /**
   * Streamed tool calling: text deltas are passed on as they come; a call arrives in pieces (its
   * id and name first, its arguments' JSON text in fragments, by `index`) and is yielded whole
   * once the stream ends, in the order of its index.
   */
  async *streamWithTools(request: LlmToolRequest): AsyncIterable<LlmDelta> {
    assertConfigured(this.endpoint);
    const tools: ChatCompletionTool[] = request.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    const stream = await openAiClient(this.endpoint).chat.completions.create(
      {
        model: request.model,
        messages: request.messages.map(toOpenAi),
        temperature: request.temperature,
        max_tokens: request.maxTokens,
        ...responseFormat(request),
        stream: true,
        tools,
        tool_choice: request.toolChoice,
      },
      { signal: request.signal, timeout: request.timeoutMs },
    );
    const calls = new Map<number, LlmToolCall>();
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      if (delta === undefined) continue;
      if (delta.content) yield { type: 'text', text: delta.content };
      for (const part of delta.tool_calls ?? []) {
        const call = calls.get(part.index) ?? { id: '', name: '', arguments: '' };
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name += part.function.name;
        if (part.function?.arguments) call.arguments += part.function.arguments;
        calls.set(part.index, call);
      }
    }
    // The SDK ends an aborted stream quietly: its calls are cut (half their arguments), never to be run.
    request.signal?.throwIfAborted();
    if (calls.size > 0) {
      const ordered = [...calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([index, call]) => ({
          ...call,
          id: call.id === '' ? `call_${index}` : call.id,
        }));
      yield { type: 'tool_calls', calls: ordered };
    }
  }
}

/**
 * `response_format` json_schema when the request has a `jsonSchema`; not strict, because strict mode
 * refuses schemas with optional fields or open objects.
 */
function responseFormat(request: LlmRequest): { response_format?: ResponseFormatJSONSchema } {
  if (request.jsonSchema === undefined) return {};
  const name = request.jsonSchemaName ?? 'answer';
  return { response_format: { type: 'json_schema', json_schema: { name, schema: request.jsonSchema, strict: false } } };
}

function toOpenAi(message: ChatMessage): ChatCompletionMessageParam {
  if (message.role !== 'assistant' || message.tool_calls === undefined || message.tool_calls.length === 0)
    return message.role === 'assistant' ? { role: 'assistant', content: message.content } : message;
  return {
    role: 'assistant',
    content: message.content === '' ? null : message.content,
    tool_calls: message.tool_calls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    })),
  };
}
