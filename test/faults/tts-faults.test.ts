import { ttsTimeoutMs } from '../support/fault-lanes.js';
import type { Expected } from '../support/fault-matrix.js';
import { faultSuite } from '../support/fault-suite.js';

/**
 * TTS (an OpenAI-compatible `/v1/audio/speech`) misbehaving in every way the fault upstream knows,
 * at each moment of a call, on a real Parley with two worker processes while healthy control calls
 * talk on both: before its audio starts and midway through it. A failed turn is `turn_failed` (the
 * audio stops) and one `tts_error` record; the next turn is answered; no worker restarts. Enhanced
 * agents stay on and hang up; passthrough agents are barged in on.
 */

const failed: Expected = { outcome: 'failed', type: 'tts_error' };

faultSuite({
  stage: 'tts',
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
  timeoutMs: ttsTimeoutMs,
  agent: (bed, lane, moment) => bed.agent(lane, { mode: moment === 'barge-in' ? 'passthrough' : 'enhanced' }),
  chat: false,
});
