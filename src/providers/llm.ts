/** A language model that answers a conversation. Implementations: providers/openai/, providers/llama/. */

/** A call the model asked for: `arguments` is the JSON text it wrote (not yet parsed or checked). */
export interface LlmToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: LlmToolCall[] | undefined }
  /** A tool's result, answering the assistant's call `tool_call_id`. */
  | { role: 'tool'; tool_call_id: string; content: string };

/** A tool the model may call (OpenAI's function tool). */
export interface LlmToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

export interface LlmRequest {
  model: string;
  messages: ChatMessage[];
  temperature: number;
  maxTokens: number;
  signal?: AbortSignal | undefined;
  timeoutMs: number;
  /**
   * JSON Schema (draft-07) the answer must match: the answer is then one JSON object and nothing
   * else. Providers constrain generation to it where they can (OpenAI-compatible: `response_format`
   * json_schema, not strict; local-llama: a grammar built from it, for answers without tools offered);
   * the caller still checks the answer against the full schema.
   */
  jsonSchema?: Record<string, unknown> | undefined;
  /** The schema's name where the provider sends one (OpenAI's `json_schema.name`); default `answer`. */
  jsonSchemaName?: string | undefined;
}

export interface LlmToolRequest extends LlmRequest {
  tools: LlmToolDefinition[];
  /** `none` makes the model answer in text (the last round of a tool loop). */
  toolChoice: 'auto' | 'none';
}

/** What a streamed round with tools yields: text as it comes, then the calls it asked for, whole. */
export type LlmDelta = { type: 'text'; text: string } | { type: 'tool_calls'; calls: LlmToolCall[] };

export interface LlmProvider {
  readonly label: string;
  /** The whole answer. */
  complete(request: LlmRequest): Promise<string>;
  /** The answer as it is generated, token by token (for speech that starts early). */
  stream(request: LlmRequest): AsyncIterable<string>;
  /** One streamed round with tools: text deltas, and at the end the tool calls if the model made any. */
  streamWithTools(request: LlmToolRequest): AsyncIterable<LlmDelta>;
}
