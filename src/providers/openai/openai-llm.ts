import type { LlmProvider, LlmRequest } from '../llm.js';
import { openAiClient, type OpenAiEndpoint } from './client.js';

/** Chat completions on any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp, …). */
export class OpenAiLlm implements LlmProvider {
  readonly label = 'openai';

  constructor(private readonly endpoint: OpenAiEndpoint) {}

  async complete(request: LlmRequest): Promise<string> {
    const completion = await openAiClient(this.endpoint).chat.completions.create(
      {
        model: request.model,
        messages: request.messages,
        temperature: request.temperature,
        max_tokens: request.maxTokens,
      },
      { signal: request.signal, timeout: request.timeoutMs },
    );
    const content = completion.choices[0]?.message.content;
    if (typeof content !== 'string') throw new Error('the model returned no text');
    return content;
  }

  async *stream(request: LlmRequest): AsyncIterable<string> {
    const stream = await openAiClient(this.endpoint).chat.completions.create(
      {
        model: request.model,
        messages: request.messages,
        temperature: request.temperature,
        max_tokens: request.maxTokens,
        stream: true,
      },
      { signal: request.signal, timeout: request.timeoutMs },
    );
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta.content;
      if (delta) yield delta;
    }
  }
}
