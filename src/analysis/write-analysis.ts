import type { LlmProvider } from '../providers/llm.js';
import type { Message } from '../schemas/conversation.js';
import type { StoredPreset } from '../schemas/preset.js';
import { describeErrors, validatorFor } from '../schemas/json-schema.js';
import type { AnalysisSettings } from '../schemas/analysis-settings.js';

export interface AnalysisCall {
  /** The conversation, oldest first. */
  messages: Message[];
  settings: AnalysisSettings;
  /** The agent's preset's LLM settings (model, temperature, max_tokens). */
  llm: StoredPreset['llm'];
  /** The provider of those settings (LlmProviders.llm): OpenAI-compatible or local-llama. */
  provider: LlmProvider;
  timeoutMs: number;
}

export interface WrittenAnalysis {
  summary: string;
  data: Record<string, unknown> | null;
  model: string;
}

/** Longest transcript sent, in characters; older lines are left out beyond it. */
const maxTranscriptChars = 100_000;

const instructions = [
  'You analyse a finished conversation between a user and a voice agent.',
  'Write `summary`: two to four sentences on what the user wanted, what the agent did, and how the conversation ended.',
].join(' ');

/**
 * Asks the agent's LLM for the summary and the operator's structured fields in one JSON object
 * (the request's `jsonSchema`: `response_format` json_schema on an OpenAI-compatible server, a
 * grammar on local-llama), and checks the reply against that schema with ajv. Throws when the call
 * fails or the reply is not JSON or does not match: the job is retried.
 */
export async function writeAnalysis(call: AnalysisCall): Promise<WrittenAnalysis> {
  const { settings, llm } = call;
  const schema = {
    type: 'object',
    properties: { summary: { type: 'string' }, data: settings.schema ?? { type: 'null' } },
    required: ['summary', 'data'],
    additionalProperties: false,
  };
  const system = [
    instructions,
    settings.schema === null
      ? 'Set `data` to null.'
      : 'Fill `data` with the fields its schema asks for, from the conversation alone; where the conversation does not say, use null or leave optional fields out.',
    'Answer with one JSON object {"summary": …, "data": …} and nothing else.',
    ...(settings.prompt === null ? [] : [`Instructions from the operator:\n${settings.prompt}`]),
  ].join('\n\n');
  const content = await call.provider.complete({
    model: llm.model,
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: transcriptOf(call.messages) },
    ],
    temperature: llm.temperature,
    maxTokens: llm.max_tokens,
    jsonSchema: schema,
    jsonSchemaName: 'post_call_analysis',
    timeoutMs: call.timeoutMs,
  });
  if (content.trim() === '') throw new Error('the model returned no text');
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    throw new Error(`the model's answer is not JSON: ${content.slice(0, 200)}`);
  }
  const validate = validatorFor(schema);
  if (!validate(parsed))
    throw new Error(`the model's answer does not match the schema: ${describeErrors(validate.errors)}`);
  const { summary, data } = parsed as { summary: string; data: Record<string, unknown> | null };
  return { summary, data, model: llm.model };
}

/** "User: …" / "Agent: …" lines, oldest first; failed answers left out, cut answers marked. */
function transcriptOf(messages: Message[]): string {
  const lines: string[] = [];
  let chars = 0;
  for (const m of [...messages].reverse()) {
    if (m.status === 'failed') continue;
    const line = `${m.role === 'user' ? 'User' : 'Agent'}: ${m.text}${m.status === 'interrupted' ? ' (interrupted by the user)' : ''}`;
    chars += line.length + 1;
    if (chars > maxTranscriptChars) break;
    lines.push(line);
  }
  return `The conversation:\n\n${lines.reverse().join('\n')}`;
}
