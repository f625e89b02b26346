import { HttpReceiver, type ReceivedRequest, type Reply } from './http-receiver.js';

export interface ChatCompletionRequest {
  model: string;
  messages: { role: string; content: string }[];
  stream?: boolean;
  temperature?: number;
  max_tokens?: number;
}

/**
 * A local server speaking OpenAI's chat-completions API (`POST /v1/chat/completions`, plain and
 * `stream: true` server-sent events, and `GET /v1/models`). `answer` decides the text or a failure.
 */
export async function startOpenAiServer(
  answer: (req: ChatCompletionRequest, index: number) => string | Reply = (req) =>
    `echo: ${req.messages.at(-1)?.content ?? ''}`,
): Promise<HttpReceiver & { baseUrl: string }> {
  let calls = 0;
  const server = await HttpReceiver.start(async (req: ReceivedRequest): Promise<Reply> => {
    if (req.method === 'GET' && req.path.endsWith('/models')) {
      return { body: { object: 'list', data: [{ id: 'test-model', object: 'model', created: 0, owned_by: 'test' }] } };
    }
    if (req.method !== 'POST' || !req.path.endsWith('/chat/completions'))
      return { status: 404, body: { error: { message: 'not found' } } };
    const body = req.json as ChatCompletionRequest;
    const result = answer(body, calls++);
    if (typeof result !== 'string') return result;
    if (body.stream) {
      const words = result.split(/(?<= )/);
      const events = words.map((w, i) =>
        JSON.stringify({
          id: 'chatcmpl-test',
          object: 'chat.completion.chunk',
          created: 0,
          model: body.model,
          choices: [
            { index: 0, delta: i === 0 ? { role: 'assistant', content: w } : { content: w }, finish_reason: null },
          ],
        }),
      );
      events.push(
        JSON.stringify({
          id: 'chatcmpl-test',
          object: 'chat.completion.chunk',
          created: 0,
          model: body.model,
          choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
        }),
      );
      return {
        body: events.map((e) => `data: ${e}\n\n`).join('') + 'data: [DONE]\n\n',
        headers: { 'Content-Type': 'text/event-stream' },
      };
    }
    return {
      body: {
        id: 'chatcmpl-test',
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: result }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      },
    };
  });
  return Object.assign(server, { baseUrl: `${server.url}/v1` });
}
