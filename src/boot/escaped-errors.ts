import { config as rxjsConfig } from 'rxjs';
import { currentSessionScope } from '../sessions/session-scope.js';

/**
 * The process's last-resort error handlers: Node's `uncaughtException` and `unhandledRejection`,
 * and RxJS's unhandled-error hook (an Observable that errors with no error path: RxJS rethrows it
 * from a timer). An error raised by a voice session's work is that session's (its scope travels
 * with the async context, sessions/session-scope.ts): it ends that session, and the process and
 * every other call on it go on. Anything else is a process-level failure: `crash` logs it and
 * exits, loudly, as before.
 */
export function routeEscapedErrors(crash: (err: unknown, what: string) => never): void {
  const route = (what: string) => (err: unknown) => {
    const scope = currentSessionScope();
    if (scope === undefined) crash(err, what);
    scope.escaped(err, what);
  };
  process.on('uncaughtException', route('uncaught exception'));
  process.on('unhandledRejection', route('unhandled promise rejection'));
  rxjsConfig.onUnhandledError = route('unhandled RxJS error');
}
