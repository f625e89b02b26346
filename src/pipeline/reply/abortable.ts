import { Observable } from 'rxjs';

/**
 * A Promise- or AsyncIterable-returning call (an HTTP request, a child process) as an Observable
 * whose teardown aborts it: unsubscribing (barge-in, hang-up) fires the AbortSignal the call was
 * given. Whatever the call does after that (throw an AbortError, end early) goes nowhere: the
 * subscriber is already closed, so no stage needs to check `signal.aborted`.
 */
export function abortable<T>(call: (signal: AbortSignal) => Promise<T> | AsyncIterable<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    const controller = new AbortController();
    let settled = false;
    const result = call(controller.signal);
    if (Symbol.asyncIterator in result) {
      void (async () => {
        for await (const value of result) {
          if (subscriber.closed) return;
          subscriber.next(value);
        }
        settled = true;
        subscriber.complete();
      })().catch((err: unknown) => {
        settled = true;
        subscriber.error(err);
      });
    } else {
      result.then(
        (value) => {
          settled = true;
          subscriber.next(value);
          subscriber.complete();
        },
        (err: unknown) => {
          settled = true;
          subscriber.error(err);
        },
      );
    }
    // a call that has finished has nothing to abort (and abort() builds a DOMException with a stack)
    return () => {
      if (!settled) controller.abort();
    };
  });
}
