import { AsyncLocalStorage } from 'node:async_hooks';
import { Observable, type MonoTypeOperatorFunction } from 'rxjs';

/**
 * The session an error belongs to, wherever it surfaces. Everything a voice session does runs in
 * its scope (an AsyncLocalStorage context): the machine's start and every event its actors send
 * it, and so the turns they start, the provider calls those make, and the timers and promises
 * those leave. An error that escapes all of that (a subscription without an error path, a promise
 * nobody awaited) is then still known to be that session's: the process's last-resort handlers
 * (boot/escaped-errors.ts) hand it to `escaped`, which ends that session alone.
 */
export interface SessionScope {
  readonly sessionId: string;
  /** An error escaped the session's graphs (`how`: the hook that caught it). */
  escaped(err: unknown, how: string): void;
}

const scopes = new AsyncLocalStorage<SessionScope>();

/** The session whose work is running now, if any. */
export function currentSessionScope(): SessionScope | undefined {
  return scopes.getStore();
}

/** Runs `fn` (and everything it starts) in `scope`. */
export function inSessionScope<T>(scope: SessionScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

/**
 * Delivers what `source` emits inside `scope`: a value that comes from another context (a socket
 * event, a VAD worker's message) carries the session's scope into whatever it causes.
 */
export function withinSessionScope<T>(scope: SessionScope): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) =>
      source.subscribe({
        next: (value) => scopes.run(scope, () => subscriber.next(value)),
        error: (err: unknown) => scopes.run(scope, () => subscriber.error(err)),
        complete: () => scopes.run(scope, () => subscriber.complete()),
      }),
    );
}
