import { ProviderError } from './provider-error.js';

/**
 * How long a provider call may take, whole and in parts. A streamed call (LLM tokens, TTS audio)
 * must give its first chunk within `firstMs`, each further chunk within `gapMs` of the one before,
 * and end within `totalMs`; a call answered at once (a transcription, a whole completion) only has
 * `totalMs`. Time the consumer spends with a chunk it was given is not the provider's and is not
 * counted against `firstMs` or `gapMs`.
 */
export interface CallLimits {
  firstMs: number;
  gapMs: number;
  totalMs: number;
}

/** A provider call ran past one of its limits; it was aborted. */
export class ProviderTimeout extends ProviderError {
  override readonly name = 'ProviderTimeout';
}

/**
 * The provider's signal for one call: aborted when the caller's `signal` aborts (barge-in, hang-up)
 * or when the call runs past a limit. Handlers on the caller's signal are removed when done.
 */
export class CallSignal {
  private readonly controller = new AbortController();
  private readonly onAbort = (): void => this.controller.abort(this.caller?.reason);

  constructor(private readonly caller: AbortSignal | undefined) {
    if (caller?.aborted) this.controller.abort(caller.reason);
    else caller?.addEventListener('abort', this.onAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  expire(err: ProviderTimeout): void {
    this.controller.abort(err);
  }

  dispose(): void {
    this.caller?.removeEventListener('abort', this.onAbort);
  }
}

const expired = Symbol('expired');

/**
 * `pending`, or `expired` once `ms` has passed. A call abandoned at its deadline rejects later (its
 * abort): the race has handled that rejection, so it is dropped, as it should be.
 */
function within<T>(pending: Promise<T>, ms: number): Promise<T | typeof expired> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof expired>((resolve) => (timer = setTimeout(() => resolve(expired), Math.max(0, ms))));
  return Promise.race([pending, late]).finally(() => clearTimeout(timer));
}

/**
 * A streamed provider call under `limits`: `call` gets a signal that aborts the request when the
 * caller aborts or a limit passes; past a limit the iteration throws a ProviderTimeout naming
 * `provider` and `what` (e.g. "speech"), whatever the request is doing by then.
 */
export async function* streamWithin<T>(
  provider: string,
  what: string,
  limits: CallLimits,
  signal: AbortSignal | undefined,
  call: (signal: AbortSignal) => AsyncIterable<T>,
): AsyncIterable<T> {
  const callSignal = new CallSignal(signal);
  const started = performance.now();
  const iterator = call(callSignal.signal)[Symbol.asyncIterator]();
  let first = true;
  let finished = false;
  try {
    for (;;) {
      const left = limits.totalMs - (performance.now() - started);
      const waitMs = Math.min(first ? limits.firstMs : limits.gapMs, left);
      const pending = iterator.next();
      const next = await within(pending, waitMs);
      if (next === expired) {
        const why =
          waitMs === left
            ? `did not finish within ${limits.totalMs} ms`
            : first
              ? `sent nothing within ${limits.firstMs} ms`
              : `stalled: nothing for ${limits.gapMs} ms`;
        const err = new ProviderTimeout(provider, `${what} timed out: ${why}`);
        callSignal.expire(err);
        throw err;
      }
      if (next.done === true) {
        finished = true;
        return;
      }
      first = false;
      yield next.value;
    }
  } finally {
    callSignal.dispose();
    // Stopped early (a limit, the consumer left): close the provider's iterator without waiting on it.
    if (!finished) void iterator.return?.().catch(() => undefined); // its own abort or failure: the call is already over
  }
}

/** A provider call answered at once, under `totalMs` (see `streamWithin`). */
export async function callWithin<T>(
  provider: string,
  what: string,
  totalMs: number,
  signal: AbortSignal | undefined,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const callSignal = new CallSignal(signal);
  try {
    const pending = call(callSignal.signal);
    const result = await within(pending, totalMs);
    if (result !== expired) return result;
    const err = new ProviderTimeout(provider, `${what} timed out: no answer within ${totalMs} ms`);
    callSignal.expire(err);
    throw err;
  } finally {
    callSignal.dispose();
  }
}
