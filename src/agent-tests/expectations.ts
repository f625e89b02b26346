import type { ExpectationResult, TestExpectation } from '../schemas/agent-test.js';
import type { Message } from '../schemas/conversation.js';
import type { HeardCall } from './test-call.js';

/** Everything one played case left behind: what the caller heard, and the records Parley wrote. */
export interface CallOutcome {
  heard: HeardCall;
  /** The conversation's messages, oldest first (user, agent and tool messages). */
  messages: Message[];
  /** The session record's `end_reason`. */
  sessionEndReason: string | null;
}

/** The expectations that are decided from the outcome alone (all but `judge`). */
export type PlainExpectation = Exclude<TestExpectation, { type: 'judge' }>;

const quote = (text: string, max = 120) => JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
const normal = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();

/** Checks one expectation against a played call. */
export function evaluate(expectation: PlainExpectation, outcome: CallOutcome): ExpectationResult {
  const result = (passed: boolean, detail: string): ExpectationResult => ({ type: expectation.type, passed, detail });
  switch (expectation.type) {
    case 'says': {
      const answers = outcome.heard.answers.filter(
        (a) => expectation.turn === undefined || a.turn === expectation.turn,
      );
      const where = expectation.turn === undefined ? 'the answers' : `the answer to turn ${expectation.turn}`;
      const pattern = expectation.pattern === undefined ? null : new RegExp(expectation.pattern, 'i');
      const phrase = expectation.phrase === undefined ? null : normal(expectation.phrase);
      const hit = answers.find(
        (a) => (phrase === null || normal(a.text).includes(phrase)) && (pattern === null || pattern.test(a.text)),
      );
      const wanted = [phrase && `phrase ${quote(phrase)}`, pattern && `pattern /${expectation.pattern}/i`]
        .filter(Boolean)
        .join(' and ');
      if (hit !== undefined) return result(true, `${wanted} found in ${quote(hit.text)}`);
      if (answers.length === 0) return result(false, `no answer to check for ${wanted}`);
      return result(false, `${wanted} not in ${where}: ${answers.map((a) => quote(a.text)).join(', ')}`);
    }
    case 'tool_called': {
      const calls = outcome.messages.flatMap((m) => (m.role === 'tool' && m.tool_call ? [m.tool_call] : []));
      const named = calls.filter((c) => c.name === expectation.name);
      const hit = named.find(
        (c) => expectation.arguments === undefined || containsSubset(c.arguments, expectation.arguments),
      );
      if (hit !== undefined) return result(true, `${expectation.name} called with ${JSON.stringify(hit.arguments)}`);
      if (named.length > 0)
        return result(
          false,
          `${expectation.name} called, but not with ${JSON.stringify(expectation.arguments)}: ${named.map((c) => JSON.stringify(c.arguments)).join(', ')}`,
        );
      const made = calls.map((c) => c.name);
      return result(false, `${expectation.name} not called${made.length > 0 ? ` (called: ${made.join(', ')})` : ''}`);
    }
    case 'call_ended': {
      const reason = outcome.sessionEndReason ?? outcome.heard.endReason;
      return result(reason === 'agent_hangup', `the session ended: ${reason ?? 'not yet'}`);
    }
    case 'transferred': {
      const reason = outcome.sessionEndReason ?? outcome.heard.endReason;
      if (reason !== 'transferred') return result(false, `not transferred; the session ended: ${reason ?? 'not yet'}`);
      const to = outcome.heard.transfer?.to ?? null;
      if (expectation.to !== undefined && to !== expectation.to)
        return result(false, `transferred to ${to ?? 'no destination'}, not ${expectation.to}`);
      return result(true, `transferred to ${to ?? 'no destination (the app decides)'}`);
    }
    case 'wait_under_ms': {
      const waits = outcome.heard.waitsMs;
      const missing = waits.flatMap((w, i) => (w === null ? [i + 1] : []));
      if (missing.length > 0) return result(false, `no agent audio after turn(s) ${missing.join(', ')}`);
      const longest = Math.max(...(waits as number[]));
      return result(
        longest < expectation.ms,
        `longest wait ${longest} ms (bound ${expectation.ms} ms); per turn: ${waits.join(', ')} ms`,
      );
    }
  }
}

/**
 * Whether `actual` holds `expected`: every field of an expected object is in the actual object
 * with a value that holds the expected one (recursively); anything else must be equal (arrays
 * element by element, in order).
 */
export function containsSubset(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((e, i) => containsSubset(actual[i], e))
    );
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
    const fields = actual as Record<string, unknown>;
    return Object.entries(expected).every(([k, v]) => k in fields && containsSubset(fields[k], v));
  }
  return Object.is(actual, expected);
}

/** The conversation as the judge reads it: one line a message, tool calls included. */
export function transcriptOf(outcome: CallOutcome): string {
  return outcome.messages
    .map((m) => {
      if (m.role === 'tool' && m.tool_call)
        return `[tool ${m.tool_call.name}(${JSON.stringify(m.tool_call.arguments)}) → ${m.text}]`;
      return `${m.role === 'user' ? 'Caller' : 'Agent'}: ${m.text}${m.status === 'interrupted' ? ' [interrupted]' : ''}`;
    })
    .join('\n');
}
