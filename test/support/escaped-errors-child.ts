// A process with Parley's last-resort handlers (boot/escaped-errors.ts): errors raised by a
// session's work (an RxJS error with no error path, a rejected promise nobody awaits, a throw from
// a timer) reach that session's scope; then one outside any session crashes the process. Prints
// one JSON line per event; used by test/unit/escaped-errors.test.ts.
import { defer, EMPTY, Subject, catchError, tap, timer } from 'rxjs';
import { routeEscapedErrors } from '../../src/boot/escaped-errors.js';
import { inSessionScope, withinSessionScope } from '../../src/sessions/session-scope.js';

const say = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
routeEscapedErrors((err, what) => {
  say({ crashed: what, message: err instanceof Error ? err.message : String(err) });
  process.exit(3);
});
const scope = {
  sessionId: 'ses_child',
  escaped: (err: unknown, how: string) =>
    say({ session: 'ses_child', how, message: err instanceof Error ? err.message : String(err) }),
};
inSessionScope(scope, () => {
  // RxJS 7's tap(subject) subscribes the subject with no error handler: caught below, thrown from a timer too
  defer(async () => {
    throw new Error('tts failed');
  })
    .pipe(
      tap(new Subject()),
      catchError(() => EMPTY),
    )
    .subscribe();
  void Promise.reject(new Error('nobody awaited'));
  setTimeout(() => {
    throw new Error('thrown from a timer');
  }, 5);
});
// a value from another context (a socket, a worker) carries the scope into what it causes
timer(10)
  .pipe(withinSessionScope(scope))
  .subscribe(() => void Promise.reject(new Error('caused by a socket event')));
setTimeout(() => {
  say({ alive: true });
  throw new Error('outside any session');
}, 100);
