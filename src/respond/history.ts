import type { ChatMessage, LlmToolCall } from '../providers/llm.js';
import type { Message } from '../schemas/conversation.js';

/**
 * Stored messages as the model's history: user and agent messages as they were (failed answers
 * left out: nothing was said), and each run of `tool` messages as the assistant's tool calls
 * followed by their results, so the model sees what it looked up before (a booking reference, an
 * order's status). A run cut at the start of the window is still whole: each tool message carries
 * its own call.
 */
export function toLlmHistory(history: Message[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let calls: LlmToolCall[] = [];
  let results: ChatMessage[] = [];
  const flush = () => {
    if (calls.length === 0) return;
    out.push({ role: 'assistant', content: '', tool_calls: calls }, ...results);
    calls = [];
    results = [];
  };
  for (const m of history) {
    if (m.role === 'tool') {
      if (m.tool_call === undefined) continue;
      const args = m.tool_call.arguments;
      calls.push({
        id: m.tool_call.call_id,
        name: m.tool_call.name,
        arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
      });
      results.push({ role: 'tool', tool_call_id: m.tool_call.call_id, content: m.text });
      continue;
    }
    flush();
    if (m.status === 'failed') continue;
    out.push({ role: m.role === 'agent' ? 'assistant' : 'user', content: m.text });
  }
  flush();
  return out;
}
