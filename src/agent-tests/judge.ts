import type { LlmProvider } from '../providers/llm.js';
import type { ExpectationResult } from '../schemas/agent-test.js';
import type { StoredPreset } from '../schemas/preset.js';

const system =
  'You check a recorded phone call between a caller and a voice agent. Read the transcript and answer the question about it with one word: yes or no.';

/** The agent's own LLM (its preset's, or the built-in preset's) and how long it may take. */
export interface JudgeModel {
  llm: StoredPreset['llm'];
  provider: LlmProvider;
  timeoutMs: number;
}

/**
 * A `judge` expectation: the question put to the agent's own LLM over the transcript; "yes" passes,
 * "no" fails, anything else fails and says what the model answered. A model that cannot be reached
 * fails the expectation with the error (the rest of the case still counts).
 */
export async function judge(model: JudgeModel, question: string, transcript: string): Promise<ExpectationResult> {
  const result = (passed: boolean, detail: string): ExpectationResult => ({ type: 'judge', passed, detail });
  let answer: string;
  try {
    answer = await model.provider.complete({
      model: model.llm.model,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: `Transcript:\n${transcript || '(nothing was said)'}\n\nQuestion: ${question}` },
      ],
      temperature: 0,
      maxTokens: 32,
      timeoutMs: model.timeoutMs,
    });
  } catch (err) {
    return result(false, `the judge (${model.provider.label} ${model.llm.model}) failed: ${(err as Error).message}`);
  }
  // A reasoning model's thoughts come first; the verdict is the first word after them.
  const verdict = answer.replace(/<think>[\s\S]*?<\/think>/g, '');
  const word = /^\W*(yes|no)\b/i.exec(verdict)?.[1]?.toLowerCase();
  const said = JSON.stringify(answer.trim().slice(0, 80));
  if (word === undefined) return result(false, `the judge answered neither yes nor no: ${said}`);
  return result(word === 'yes', `the judge (${model.llm.model}) answered ${said}`);
}
