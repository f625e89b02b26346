/** A language model that answers a conversation. Implementations: providers/openai/. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LlmRequest {
  model: string;
  messages: ChatMessage[];
  temperature: number;
  maxTokens: number;
  signal?: AbortSignal | undefined;
  timeoutMs: number;
}

export interface LlmProvider {
  readonly label: string;
  /** The whole answer. */
  complete(request: LlmRequest): Promise<string>;
  /** The answer as it is generated, token by token (for speech that starts early). */
  stream(request: LlmRequest): AsyncIterable<string>;
}
