import { upstreamTimeoutMs } from '../support/fault-lanes.js';
import type { Expected } from '../support/fault-matrix.js';
import { faultSuite } from '../support/fault-suite.js';

/**
 * The LLM (an OpenAI-compatible chat-completions server) misbehaving in every way the fault
 * upstream knows, at each moment of a call, on a real Parley with two worker processes while
 * healthy control calls talk on both. A failed turn is silence, `turn_failed` and one `llm_error`
 * record (`llm_timeout` when it did not answer, or stalled, past its time); chat answers 502/504
 * with the record's id; the next turn is answered; no worker restarts. The same holds when the fault
 * hits the round after a tool answered.
 */

const failed = (type: string): Expected => ({ outcome: 'failed', type });

faultSuite({
  stage: 'llm',
  expected: {
    http_404: failed('llm_error'),
    http_500: failed('llm_error'),
    http_429: failed('llm_error'),
    hang: failed('llm_timeout'),
    reset: failed('llm_error'),
    garbage: failed('llm_error'),
    empty: failed('llm_error'),
    cut: failed('llm_error'),
    drip: failed('llm_timeout'),
  },
  timeoutMs: upstreamTimeoutMs,
  agent: (bed, lane) => bed.agent(lane),
  chat: true,
  afterToolRound: true,
});
