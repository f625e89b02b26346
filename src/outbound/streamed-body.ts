import type { ClientRequest, IncomingMessage } from 'node:http';

/** A streamed reply went quiet longer than its `stallMs` once it had started. */
export class PostStallError extends Error {
  override readonly name = 'PostStallError';
  constructor(readonly stallMs: number) {
    super(`the reply stalled: nothing for ${stallMs} ms`);
  }
}

/** The reply's connection closed before its body was complete (a server that died mid-answer). */
export class PostCutError extends Error {
  override readonly name = 'PostCutError';
  constructor() {
    super('the connection closed before the reply was complete');
  }
}

/**
 * A reply body read as it arrives: each chunk once it comes. Reading it may throw PostStallError
 * (quiet past `stallMs` after the first chunk; the first is bounded by the exchange's deadline
 * only), the exchange's PostTimeoutError, PostCutError, or the abort / network error that ended
 * it. Leaving it early (a `break`, the caller's abort) drops the connection.
 */
export type StreamedBody = AsyncIterable<Buffer>;

export interface StreamedBodyOptions {
  stallMs: number;
  /** The exchange's deadline error once it has passed (the request is destroyed then). */
  expired: () => Error | undefined;
  /** Called once the body is over, however it ended (clears the exchange's deadline). */
  done: () => void;
}

export function streamedBody(res: IncomingMessage, req: ClientRequest, options: StreamedBodyOptions): StreamedBody {
  let cut = false;
  res.once('aborted', () => (cut = true));
  // Until the reader iterates, a failing body must not be an unhandled 'error': it surfaces
  // through the iterator below (its `expired` or `cut` reason, or the error itself).
  res.on('error', () => undefined);
  return read(res, req, options, () => cut);
}

async function* read(
  res: IncomingMessage,
  req: ClientRequest,
  options: StreamedBodyOptions,
  wasCut: () => boolean,
): AsyncGenerator<Buffer> {
  const chunks = res[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let first = true;
  let stall: NodeJS.Timeout | undefined;
  try {
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        next = first ? await chunks.next() : await beforeStall(chunks.next(), options.stallMs, (t) => (stall = t));
      } catch (err) {
        throw options.expired() ?? (wasCut() ? new PostCutError() : err);
      } finally {
        clearTimeout(stall);
      }
      if (next.done === true) break;
      first = false;
      yield next.value;
    }
    // A body that ended without its last chunk (or short of its Content-Length) was cut.
    if (!res.complete) throw options.expired() ?? new PostCutError();
  } finally {
    options.done();
    // left early (a stall, the caller's abort or break): nothing more is read, the socket is not reused
    if (!res.complete) req.destroy();
  }
}

/** `pending`, or a PostStallError once `ms` pass first (the timer is handed to the caller to clear). */
function beforeStall<T>(pending: Promise<T>, ms: number, timer: (t: NodeJS.Timeout) => void): Promise<T> {
  return Promise.race([
    pending,
    new Promise<never>((_, reject) => timer(setTimeout(() => reject(new PostStallError(ms)), ms))),
  ]);
}
