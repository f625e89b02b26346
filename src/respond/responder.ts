import type { Logger } from 'pino';
import type { PipelineSettingsOf } from '../agents/pipeline-settings.js';
import type { ChatMessage, LlmProvider } from '../providers/llm.js';
import type { StoredAgent } from '../schemas/agent.js';
import type { StoredPreset } from '../schemas/preset.js';
import type { WebhookObserver } from '../metrics/operator-metrics.js';
import type { Store } from '../store/store.js';
import { Toolbox } from '../tools/toolbox.js';
import type { TurnRecorder } from '../session-writes/turn-recorder.js';
import { toLlmHistory } from './history.js';
import { answerWithTools } from './tool-loop.js';
import { guardedLlm } from '../providers/guarded-providers.js';
import { ProviderError } from '../providers/provider-error.js';
import { webhookAnswer } from './webhook-answer.js';
import { AnswerFailed } from './answer-failure.js';
import type { Answer, Turn } from './answer.js';
import { FailureRecords, type FailureRecordsOptions } from './failure-records.js';

export { AnswerFailed } from './answer-failure.js';

export type { Answer, Turn } from './answer.js';

export interface ResponderOptions {
  store: Store;
  /** The agent's pipeline settings: the LLM of its preset (or the built-in preset's). */
  settings: Pick<PipelineSettingsOf, 'of'>;
  logger: Logger;
  /** The LLM for a preset's `llm` section. */
  llmFor: (settings: StoredPreset['llm']) => LlmProvider;
  /** A whole LLM call, first token to last (PARLEY_LLM_TIMEOUT_MS). */
  llmTimeoutMs: number;
  /**
   * The longest gap between two pieces of a streamed answer, LLM tokens or a webhook's stream
   * (PARLEY_PROVIDER_STALL_MS; default 10 s).
   */
  stallMs?: number | undefined;
  /** Past messages sent to the LLM with each turn. */
  historyMessages: number;
  /** Counts webhook outcomes and durations (operator metrics). */
  metrics?: WebhookObserver | undefined;
  /** Stores tool calls (a `tool` message and a `tool_call` event each). */
  recorder: Pick<TurnRecorder, 'toolCalled'>;
  /** PARLEY_ALLOW_HTTP_TOOLS: tools may be called over plain http on any host. */
  allowHttpTools: boolean;
  /** What an `llm_not_configured` failure says: readiness' problem for the agent's LLM (every fix). */
  readiness?: FailureRecordsOptions['readiness'];
}

/**
 * Gets the agent's answer to one user turn: the operator's webhook (passthrough) or the preset's
 * LLM (enhanced). Failures become error records here, so chat and voice report them alike; an
 * abort (barge-in) is not an error.
 */
export class Responder {
  private readonly failures: FailureRecords;

  constructor(private readonly options: ResponderOptions) {
    this.failures = new FailureRecords(options);
  }

  async answer(agent: StoredAgent, turn: Turn, signal?: AbortSignal): Promise<Answer> {
    if (agent.mode !== 'passthrough') return this.viaLlm(agent, turn, signal);
    // Chat wants the text whole: a streamed webhook answer is read to its end.
    const parts = this.viaWebhook(agent, turn, signal);
    for (;;) {
      const next = await parts.next();
      if (next.done === true) return next.value;
    }
  }

  private async viaLlm(agent: StoredAgent, turn: Turn, signal?: AbortSignal): Promise<Answer> {
    const start = performance.now();
    const elapsed = () => Math.round((performance.now() - start) * 100) / 100;
    try {
      const settings = (await this.options.settings.of(agent)).llm;
      const messages = await this.prompt(agent, turn);
      const toolbox = this.toolbox(agent);
      const text = toolbox.empty
        ? await this.llm(settings).complete({
            model: settings.model,
            messages,
            temperature: settings.temperature,
            maxTokens: settings.max_tokens,
            signal,
            timeoutMs: this.options.llmTimeoutMs,
          })
        : await this.withTools(agent, turn, settings, messages, toolbox, signal);
      if (toolbox.empty && text.trim() === '') throw new ProviderError(settings.provider, 'the model returned no text');
      return { ok: true, text, source: 'llm', latencyMs: elapsed() };
    } catch (err) {
      const message = 'aborted by the session';
      if (signal?.aborted)
        return { ok: false, aborted: true, errorId: null, message, latencyMs: elapsed(), reason: 'aborted' };
      const failure = await this.failures.describeLlm(agent, err);
      const errorId = await this.failures.record(agent, turn.sessionId, { ...failure, latencyMs: elapsed() });
      return {
        ok: false,
        aborted: false,
        errorId,
        message: failure.message,
        latencyMs: elapsed(),
        reason: failure.type,
      };
    }
  }

  /**
   * The answer as text deltas, for speech: the webhook's reply (whole, or its pieces as it streams
   * them), or the LLM's tokens as they come, with the LLM settings the session resolved once when it started. Failures are recorded
   * like `answer`'s and thrown as AnswerFailed.
   */
  async *stream(agent: StoredAgent, turn: Turn, llm: StoredPreset['llm'], signal?: AbortSignal): AsyncIterable<string> {
    if (agent.mode === 'passthrough') {
      const answer = yield* this.viaWebhook(agent, turn, signal);
      if (!answer.ok) throw new AnswerFailed(answer.message, answer.errorId, answer.aborted, answer.reason);
      return;
    }
    const start = performance.now();
    const elapsed = () => Math.round((performance.now() - start) * 100) / 100;
    try {
      const messages = await this.prompt(agent, turn);
      const toolbox = this.toolbox(agent);
      if (!toolbox.empty) {
        // Speech does not wait for the calls' records: voice writes are queued and retried per session.
        yield* this.toolLoop(agent, turn, llm, messages, toolbox, signal, true, (write) =>
          write.catch((err: unknown) =>
            this.options.logger.error({ err, session_id: turn.sessionId }, 'could not store a tool call'),
          ),
        );
        return;
      }
      let said = false;
      for await (const delta of this.llm(llm).stream({
        model: llm.model,
        messages,
        temperature: llm.temperature,
        maxTokens: llm.max_tokens,
        signal,
        timeoutMs: this.options.llmTimeoutMs,
      })) {
        said ||= delta.trim() !== '';
        yield delta;
      }
      // A 200 that streamed no words (an empty body, only empty deltas) is a failed call, not an answer.
      if (!said) throw new ProviderError(llm.provider, 'the model returned no text');
    } catch (err) {
      if (signal?.aborted) throw new AnswerFailed('aborted by the session', null, true, 'aborted');
      const failure = await this.failures.describeLlm(agent, err);
      const errorId = await this.failures.record(agent, turn.sessionId, { ...failure, latencyMs: elapsed() });
      throw new AnswerFailed(failure.message, errorId, false, failure.type);
    }
  }

  /**
   * System prompt (with RAG context when present), the `historyMessages` messages before this turn
   * (failed answers left out), and the user's turn last. The caller may already have stored the
   * turn as the newest message; it is not counted as history then.
   */
  async prompt(agent: StoredAgent, turn: Turn): Promise<ChatMessage[]> {
    const n = this.options.historyMessages;
    const recent = await this.options.store.conversations.recent(turn.conversationId, n + 1);
    const newest = recent[recent.length - 1];
    if (newest !== undefined && newest.role === 'user' && newest.text === turn.transcript) recent.pop();
    const history = n === 0 ? [] : recent.slice(-n);
    const system =
      turn.context === null
        ? agent.system_prompt
        : `${agent.system_prompt}\n\nUse this context when it helps:\n${turn.context}`;
    return [{ role: 'system', content: system }, ...toLlmHistory(history), { role: 'user', content: turn.transcript }];
  }

  private toolbox(agent: StoredAgent): Toolbox {
    return new Toolbox(agent, {
      store: this.options.store,
      logger: this.options.logger,
      allowHttp: this.options.allowHttpTools,
    });
  }

  /** A chat answer with tools: the streamed tool loop's text, whole, once its calls are stored. */
  private async withTools(
    agent: StoredAgent,
    turn: Turn,
    settings: StoredPreset['llm'],
    messages: ChatMessage[],
    toolbox: Toolbox,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    const writes: Promise<unknown>[] = [];
    let text = '';
    try {
      for await (const delta of this.toolLoop(agent, turn, settings, messages, toolbox, signal, false, (write) =>
        writes.push(write),
      ))
        text += delta;
    } finally {
      // Calls made before a failure stay on record too; a write failing fails the chat request.
      await Promise.all(writes);
    }
    return text.trim();
  }

  /** The tool loop for this turn; `stored` gets each call's record write (a `tool` message and its event). */
  private toolLoop(
    agent: StoredAgent,
    turn: Turn,
    settings: StoredPreset['llm'],
    messages: ChatMessage[],
    toolbox: Toolbox,
    signal: AbortSignal | undefined,
    slowPhrases: boolean,
    stored: (write: Promise<unknown>) => void,
  ): AsyncIterable<string> {
    return answerWithTools({
      llm: this.llm(settings),
      settings,
      messages,
      toolbox,
      ctx: { agent, session: turn.session, channel: turn.channel },
      timeoutMs: this.options.llmTimeoutMs,
      signal: signal ?? new AbortController().signal,
      slowPhrases,
      onCall: (outcome) => stored(this.options.recorder.toolCalled(agent, turn.session, outcome, turn)),
      onAction: turn.onAction,
    });
  }

  /** The preset's LLM, every call bounded: the whole call by llmTimeoutMs, a stalled stream by llmStallMs. */
  private llm(settings: StoredPreset['llm']) {
    return guardedLlm(this.options.llmFor(settings), this.stallMs);
  }

  private get stallMs(): number {
    return this.options.stallMs ?? 10_000;
  }

  private viaWebhook(agent: StoredAgent, turn: Turn, signal: AbortSignal | undefined): AsyncGenerator<string, Answer> {
    return webhookAnswer(agent, turn, signal, {
      failures: this.failures,
      metrics: this.options.metrics,
      stallMs: this.stallMs,
    });
  }
}
