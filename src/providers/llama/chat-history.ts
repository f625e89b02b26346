import type { ChatHistoryItem, ChatModelFunctionCall, ChatModelFunctions } from 'node-llama-cpp';
import type { ChatMessage, LlmToolDefinition } from '../llm.js';
import { toGrammarSchema } from './json-schema-grammar.js';

/** JSON text as its value (so the chat wrapper writes it back as JSON), other text as it is. */
function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text; // not JSON: plain text, kept as it is
  }
}

/**
 * Parley's chat messages as node-llama-cpp's chat history, which the model's chat wrapper renders
 * in the model's own format (Qwen's `<tool_call>` / `<tool_response>` for Qwen2.5). An assistant
 * message's tool calls become function-call items carrying the results of the `tool` messages that
 * answer them (matched by call id), and the assistant messages of one turn (a tool round, then the
 * answer) form one model response, as the wrapper expects. A history ending in such a response is
 * continued by the model after the tool results.
 */
export function toChatHistory(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  /** Calls of the latest assistant message with tool calls, by id, waiting for their results. */
  let calls = new Map<string, ChatModelFunctionCall>();
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        history.push({ type: 'system', text: message.content });
        break;
      case 'user':
        history.push({ type: 'user', text: message.content });
        break;
      case 'assistant': {
        const response: (string | ChatModelFunctionCall)[] = message.content === '' ? [] : [message.content];
        const toolCalls = message.tool_calls ?? [];
        if (toolCalls.length > 0) calls = new Map();
        toolCalls.forEach((call, i) => {
          const item: ChatModelFunctionCall = {
            type: 'functionCall',
            name: call.name,
            params: jsonOrText(call.arguments),
            result: null,
            startsNewChunk: i === 0,
          };
          calls.set(call.id, item);
          response.push(item);
        });
        const last = history[history.length - 1];
        if (last?.type === 'model') last.response.push(...response);
        else history.push({ type: 'model', response });
        break;
      }
      case 'tool': {
        const call = calls.get(message.tool_call_id);
        if (call !== undefined) call.result = jsonOrText(message.content);
        break;
      }
    }
  }
  return history;
}

/** Tool definitions as node-llama-cpp functions: the chat wrapper documents them to the model. */
export function toFunctions(tools: readonly LlmToolDefinition[]): ChatModelFunctions {
  return Object.fromEntries(
    tools.map((t) => [t.name, { description: t.description, params: toGrammarSchema(t.parameters) }]),
  );
}
