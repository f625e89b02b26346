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
export function toolCallEvents(model: string, answer: ToolCallsAnswer): string[] {
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

/** The server-sent events of a text answer as OpenAI streams it: one chunk per word, then `finish_reason: stop`. */
export function textEvents(model: string, text: string): string[] {
  const words = text.split(/(?<= )/);
  const events = words.map((w, i) => chunk(model, i === 0 ? { role: 'assistant', content: w } : { content: w }));
  events.push(chunk(model, {}, 'stop'));
  return events;
}

const sseHeaders = { 'Content-Type': 'text/event-stream' };

/** Server-sent events as they go on the wire, ending with `data: [DONE]`. */
export function sseBody(events: string[]): string {
  return events.map((e) => `data: ${e}\n\n`).join('') + 'data: [DONE]\n\n';
}

/** A whole (not streamed) chat completion answering `text`. */
export function completion(model: string, text: string): Record<string, unknown> {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
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
      return { body: sseBody(toolCallEvents(body.model, result)), headers: sseHeaders };
    }
    if (typeof result !== 'string') return result;
    if (body.stream) return { body: sseBody(textEvents(body.model, result)), headers: sseHeaders };
    return { body: completion(body.model, result) };
  });
  return Object.assign(server, { baseUrl: `${server.url}/v1` });
}
