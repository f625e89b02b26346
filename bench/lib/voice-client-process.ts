import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { ChildMessage, ParentMessage } from './voice-load-protocol.js';

/**
 * The bench's voice clients in their own process (bench/lib/voice-load-side.ts), driven over IPC:
 * `send` a job, `next` its answer. A `failed` answer or the child's exit rejects.
 */
export class VoiceClientProcess {
  private readonly inbox: ChildMessage[] = [];
  private readonly waiters: { resolve: (m: ChildMessage) => void; reject: (e: Error) => void }[] = [];
  private exited: Error | undefined;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: ChildMessage) => {
      const waiter = this.waiters.shift();
      if (waiter === undefined) this.inbox.push(message);
      else if ('failed' in message) waiter.reject(new Error(`voice clients failed: ${message.failed}`));
      else waiter.resolve(message);
    });
    child.once('exit', (code, signal) => {
      this.exited = new Error(`voice client process exited (${signal ?? code})`);
      for (const w of this.waiters.splice(0)) w.reject(this.exited);
    });
  }

  static async start(): Promise<VoiceClientProcess> {
    const script = fileURLToPath(new URL('./voice-load-side.ts', import.meta.url));
    const child = fork(script, [], { execArgv: ['--import', 'tsx'] });
    const killOnExit = () => child.kill('SIGKILL');
    process.once('exit', killOnExit); // never outlive the bench
    child.once('exit', () => process.off('exit', killOnExit));
    const clients = new VoiceClientProcess(child);
    await clients.next();
    return clients;
  }

  get pid(): number {
    return this.child.pid!;
  }

  send(message: ParentMessage): void {
    this.child.send(message);
  }

  /** The child's next message. */
  next(): Promise<ChildMessage> {
    const queued = this.inbox.shift();
    if (queued !== undefined) {
      return 'failed' in queued
        ? Promise.reject(new Error(`voice clients failed: ${queued.failed}`))
        : Promise.resolve(queued);
    }
    if (this.exited !== undefined) return Promise.reject(this.exited);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** Sends `message` and returns the answer, checked to be of the expected kind. */
  async ask<T extends ChildMessage>(message: ParentMessage, is: (m: ChildMessage) => m is T): Promise<T> {
    this.send(message);
    const answer = await this.next();
    if (!is(answer)) throw new Error(`voice clients answered ${JSON.stringify(answer).slice(0, 200)}`);
    return answer;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.send({ exit: true } satisfies ParentMessage);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
