import { HttpReceiver, type ReceivedRequest, type Reply } from './http-receiver.js';

export interface ChatCompletionRequest {
  model: string;
  messages: {
    role: string;
    content: string | null;
    tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    tool_call_id?: string;
  }[];
  stream?: boolean;
  temperature?: number;
  max_tokens?: number;
  tools?: { type: 'function'; function: { name: string; description: string; parameters: unknown } }[];
  tool_choice?: string;
}

/** A streamed answer that asks for tools: optional text first, then the calls (arguments in fragments). */
export interface ToolCallsAnswer {
  text?: string;
  toolCalls: { id?: string; name: string; arguments: Record<string, unknown> | string }[];
}

type Answer = string | Reply | ToolCallsAnswer;

function chunk(model: string, delta: Record<string, unknown>, finish: string | null = null): string {
  return JSON.stringify({
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 0,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
}

/**
 * The server-sent events of a tool-calling answer as OpenAI streams them: the text, then each
 * call's id and name in one chunk and its arguments' JSON in three fragments, then
 * `finish_reason: tool_calls`.
 */
function toolCallEvents(model: string, answer: ToolCallsAnswer): string[] {
  const events: string[] = [chunk(model, { role: 'assistant', content: answer.text ?? null })];
  answer.toolCalls.forEach((call, index) => {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    const id = call.id ?? `call_${index}_${call.name}`;
    events.push(
      chunk(model, { tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: '' } }] }),
    );
    const third = Math.ceil(args.length / 3);
    for (let at = 0; at < args.length; at += third) {
      events.push(chunk(model, { tool_calls: [{ index, function: { arguments: args.slice(at, at + third) } }] }));
    }
  });
  events.push(chunk(model, {}, 'tool_calls'));
  return events;
}

/**
 * A local server speaking OpenAI's chat-completions API (`POST /v1/chat/completions`, plain and
 * `stream: true` server-sent events, and `GET /v1/models`). `answer` decides the text, a failure,
 * or (streamed) tool calls.
 */
export async function startOpenAiServer(
  answer: (req: ChatCompletionRequest, index: number) => Answer | Promise<Answer> = (req) =>
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
    const result = await answer(body, calls++);
    if (typeof result !== 'string' && 'toolCalls' in result) {
      return {
        body:
          toolCallEvents(body.model, result)
            .map((e) => `data: ${e}\n\n`)
            .join('') + 'data: [DONE]\n\n',
        headers: { 'Content-Type': 'text/event-stream' },
      };
    }
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
