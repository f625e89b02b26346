import { upstreamTimeoutMs } from '../support/fault-lanes.js';
import type { Expected } from '../support/fault-matrix.js';
import { faultSuite } from '../support/fault-suite.js';

/**
 * A passthrough agent's webhook misbehaving in every way the fault upstream knows, at each moment
 * of a call and on POST /sdk/v1/chat, on a real Parley with two worker processes while healthy
 * control calls talk on both. A failed turn is silence, `turn_failed` and one record of the
 * webhook failure's type (chat: 502/504 with its id); the next turn is answered; no worker restarts.
 */

const failed = (type: string): Expected => ({ outcome: 'failed', type });

faultSuite({
  stage: 'webhook',
  expected: {
    http_404: failed('webhook_http_error'),
    http_500: failed('webhook_http_error'),
    http_429: failed('webhook_http_error'),
    hang: failed('webhook_timeout'),
    reset: failed('webhook_network_error'),
    garbage: failed('webhook_invalid_response'),
    empty: failed('webhook_invalid_response'),
    cut: failed('webhook_network_error'),
    drip: failed('webhook_timeout'),
  },
  timeoutMs: upstreamTimeoutMs,
  agent: (bed, lane) => bed.agent(lane, { mode: 'passthrough' }),
  chat: true,
});
