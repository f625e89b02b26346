import type { ChatMessage, LlmProvider, LlmToolCall } from '../providers/llm.js';
import { ProviderError } from '../providers/provider-error.js';
import type { StoredPreset } from '../schemas/preset.js';
import type { CallAction } from '../actions/call-action.js';
import type { ToolContext, ToolOutcome, Toolbox } from '../tools/toolbox.js';

/** Rounds of tool calls in one turn; the round after the last one must answer in text. */
export const maxToolRounds = 5;
/** A tool round running longer than this says its tool's `slow_phrase` (voice). */
export const slowToolMs = 1_000;

export interface ToolLoopInput {
  llm: LlmProvider;
  settings: StoredPreset['llm'];
  /** The prompt: system, history, the user's turn. */
  messages: ChatMessage[];
  toolbox: Toolbox;
  ctx: ToolContext;
  timeoutMs: number;
  signal: AbortSignal;
  /** Say tools' slow phrases (voice); chat answers whole and says none. */
  slowPhrases: boolean;
  /** Each call once it has finished (stored by the caller as a `tool` message). */
  onCall: (outcome: ToolOutcome) => void;
  /** A built-in call-control action the model called (end_call, transfer): carried out by the caller. */
  onAction?: ((action: CallAction) => void) | undefined;
}

/**
 * An answer with tools, as text deltas for speech: each round streams the model's text through
 * at once; when it asks for tools, the calls of that round run in parallel, their results go back
 * as `tool` messages, and the next round follows, at most `maxToolRounds` of them before a last
 * one with `tool_choice: none`. Text said before the calls ends in a newline, so the sentence
 * splitter speaks it while they run. A built-in call-control action (end_call, transfer) ends the
 * turn: its closing words are said and the action is handed to `onAction`. Throws what the LLM throws; an abort (barge-in) aborts the
 * calls in flight, which are still reported (`interrupted`).
 */
export async function* answerWithTools(input: ToolLoopInput): AsyncIterable<string> {
  const { toolbox, signal } = input;
  const messages = [...input.messages];
  let saidSlowPhrase = false;
  for (let round = 0; ; round++) {
    let text = '';
    let calls: LlmToolCall[] = [];
    for await (const delta of input.llm.streamWithTools({
      model: input.settings.model,
      messages,
      temperature: input.settings.temperature,
      maxTokens: input.settings.max_tokens,
      tools: toolbox.definitions,
      toolChoice: round < maxToolRounds ? 'auto' : 'none',
      signal,
      timeoutMs: input.timeoutMs,
    })) {
      if (delta.type === 'text') {
        text += delta.text;
        yield delta.text;
      } else calls = delta.calls;
    }
    // A round that streams neither words nor calls (at first, or after the tools' results) leaves the turn unanswered.
    if (calls.length === 0 && text.trim() === '' && !signal.aborted)
      throw new ProviderError(input.llm.label, 'the model returned no text');
    if (calls.length === 0 || round >= maxToolRounds) return;
    if (text !== '' && !text.endsWith('\n')) yield '\n';

    const running = Promise.all(
      calls.map((call) =>
        toolbox.run(call, input.ctx, signal).then((outcome) => {
          input.onCall(outcome);
          return outcome;
        }),
      ),
    );
    const phrase = calls.map((c) => toolbox.slowPhrase(c.name)).find((p) => p !== null);
    let outcomes: ToolOutcome[];
    if (input.slowPhrases && !saidSlowPhrase && phrase !== undefined) {
      let timer: NodeJS.Timeout | undefined;
      const slow = new Promise<'slow'>((resolve) => (timer = setTimeout(() => resolve('slow'), slowToolMs)));
      const first = await Promise.race([running, slow]);
      clearTimeout(timer);
      if (first === 'slow') {
        saidSlowPhrase = true;
        yield `${phrase}\n`;
      }
      outcomes = await running;
    } else outcomes = await running;
    if (signal.aborted) throw signal.reason ?? new Error('aborted');
    // A call-control action ends the turn: its closing words are the last said, no more rounds.
    const ending = outcomes.find((o) => o.ends !== undefined)?.ends;
    if (ending !== undefined) {
      if (ending.say !== '') yield ending.say;
      input.onAction?.(ending.action);
      return;
    }

    messages.push({ role: 'assistant', content: text, tool_calls: calls });
    for (const outcome of outcomes)
      messages.push({ role: 'tool', tool_call_id: outcome.record.call_id, content: outcome.content });
  }
}
