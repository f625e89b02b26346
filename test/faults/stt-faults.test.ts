import { upstreamTimeoutMs } from '../support/fault-lanes.js';
import type { Expected } from '../support/fault-matrix.js';
import { faultSuite } from '../support/fault-suite.js';
import { speechCaller } from '../support/speech-caller.js';

/**
 * STT (an OpenAI-compatible `/v1/audio/transcriptions`) misbehaving in every way the fault
 * upstream knows, with real speech streamed at real time, at each moment of a call, on a real
 * Parley with two worker processes while healthy control calls talk on both. A failed turn is
 * silence, `turn_failed` and one `stt_error` record; the next utterance is answered; no worker
 * restarts; the session never ends over it.
 */

const failed: Expected = { outcome: 'failed', type: 'stt_error' };

faultSuite({
  stage: 'stt',
  expected: {
    http_404: failed,
    http_500: failed,
    http_429: failed,
    hang: failed,
    reset: failed,
    garbage: failed,
    empty: failed,
    cut: failed,
    drip: failed,
  },
  timeoutMs: upstreamTimeoutMs,
  caller: speechCaller(),
  agent: (bed, lane) => bed.agent(lane),
  chat: false,
});
