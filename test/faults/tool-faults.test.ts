import { upstreamTimeoutMs } from '../support/fault-lanes.js';
import type { Expected } from '../support/fault-matrix.js';
import { faultSuite } from '../support/fault-suite.js';

/**
 * An enhanced agent's tool misbehaving in every way the fault upstream knows, at each moment of a
 * call and on POST /sdk/v1/chat, on a real Parley with two worker processes while healthy control
 * calls talk on both. A tool failure never fails the turn: the model is told and answers, and one
 * `tool_error` record names the failure; no worker restarts.
 */

const told = (failure: string): Expected => ({ outcome: 'answered', type: 'tool_error', failure });

faultSuite({
  stage: 'tool',
  expected: {
    http_404: told('http_error'),
    http_500: told('http_error'),
    http_429: told('http_error'),
    hang: told('timeout'),
    reset: told('network_error'),
    garbage: told('invalid_response'),
    empty: told('invalid_response'),
    cut: told('network_error'),
    drip: told('timeout'),
  },
  timeoutMs: upstreamTimeoutMs,
  agent: (bed, lane) => bed.agent(lane, { tools: true }),
  chat: true,
});
