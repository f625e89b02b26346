import { CallSignal, ProviderTimeout } from './call-deadline.js';
import type { TtsStream, TtsStreamChunk } from './tts.js';

export interface StreamLimits {
  /** How long audio that is owed may take to come: after a flush or the end, and between chunks. */
  stallMs: number;
  /** How long the audio may take to finish once the text has ended. */
  totalMs: number;
}

/**
 * A text stream (`open`, given a signal that aborts it) under `limits`. Its clock runs only while
 * it owes audio: a flushed segment whose audio has not started, or the rest once the text has
 * ended. Audio owed must start within `stallMs` of the flush (or the end), and each chunk come
 * within `stallMs` of the one before while more is owed; everything within `totalMs` of the end.
 * While the text is still being written (an LLM thinking between sentences) no clock runs: that
 * wait is the answer's, bounded by its own limits. Past a limit the stream is aborted and `audio`
 * throws a ProviderTimeout naming `provider`.
 */
export function streamWithinLimits(
  provider: string,
  limits: StreamLimits,
  signal: AbortSignal | undefined,
  open: (signal: AbortSignal) => TtsStream,
): TtsStream {
  const callSignal = new CallSignal(signal);
  const inner = open(callSignal.signal);
  let flushed = 0;
  /** The latest segment whose audio has started. */
  let spoken = -1;
  let ended = false;
  let heard = false;
  let stall: NodeJS.Timeout | undefined;
  let total: NodeJS.Timeout | undefined;
  let expire: (err: ProviderTimeout) => void = () => undefined;
  const expired = new Promise<ProviderTimeout>((resolve) => (expire = resolve));
  const owed = () => ended || spoken < flushed - 1;
  const timeout = (why: string) => {
    const err = new ProviderTimeout(provider, `speech timed out: ${why}`);
    // settled before the abort, so the wait on the stream's next chunk ends with it, not with the abort's quiet end
    expire(err);
    callSignal.expire(err);
  };
  /** Starts the stall clock when audio is owed; `restart`: from now even if it runs (a chunk came). */
  const arm = (restart: boolean) => {
    if (stall !== undefined && !restart) return;
    clearTimeout(stall);
    stall = undefined;
    if (!owed()) return;
    const why = heard ? `stalled: nothing for ${limits.stallMs} ms` : `sent nothing within ${limits.stallMs} ms`;
    stall = setTimeout(() => timeout(why), limits.stallMs);
  };
  const stop = () => {
    clearTimeout(stall);
    clearTimeout(total);
  };
  callSignal.signal.addEventListener('abort', stop, { once: true });

  async function* audio(): AsyncIterable<TtsStreamChunk> {
    const iterator = inner.audio[Symbol.asyncIterator]();
    let finished = false;
    try {
      for (;;) {
        const next = await Promise.race([iterator.next(), expired]);
        if (next instanceof ProviderTimeout) throw next;
        if (next.done === true) {
          finished = true;
          return;
        }
        heard = true;
        spoken = Math.max(spoken, next.value.segment);
        arm(true);
        yield next.value;
      }
    } finally {
      stop();
      callSignal.dispose();
      // Stopped early (a limit, the consumer left): close the provider's stream without waiting on it.
      if (!finished) void iterator.return?.().catch(() => undefined); // its own abort or failure: the call is over
    }
  }

  return {
    push: (text) => inner.push(text),
    flush: () => {
      inner.flush();
      flushed++;
      arm(false);
    },
    end: () => {
      inner.end();
      ended = true;
      arm(false);
      total = setTimeout(() => timeout(`did not finish within ${limits.totalMs} ms`), limits.totalMs);
    },
    audio: audio(),
  };
}
