import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
import { exitRequest, type RpcProtocol, type RpcReply, type RpcRequest } from './rpc-protocol.js';
import { workerEntry } from './worker-entry.js';

export interface WorkerClientOptions {
  /** The worker module: `import.meta.url` of a module beside it and its name without extension. */
  module: { base: string; name: string };
  workerData: unknown;
  /** Names the worker in errors (`<name> worker exited with code 1`). */
  name: string;
  /**
   * Requests handed to the worker at once; later ones wait here, where an abort removes them
   * before they run. Default: no limit (the worker queues them, so it never idles between them).
   */
  maxInFlight?: number;
  /** The error a failed reply rejects with. Default: `new Error(message)`. */
  replyError?: (message: string) => Error;
  /** The error pending and later requests reject with once the worker stopped. Default: the cause. */
  stopError?: (cause: Error) => Error;
  /** Called once when the worker stopped (crash, exit or `close()`). */
  onStop?: (cause: Error) => void;
}

export interface CallOptions {
  /** Aborting rejects the call at once; a request still waiting is never sent, a running one's reply is dropped. */
  signal?: AbortSignal | undefined;
  /** Buffers moved to the worker instead of copied. */
  transfer?: ArrayBuffer[];
}

interface Call {
  id: number;
  message: unknown;
  transfer: ArrayBuffer[];
  signal: AbortSignal | undefined;
  resolve: (body: unknown) => void;
  reject: (err: unknown) => void;
  onAbort: () => void;
  /** The caller was answered already (aborted); the worker's reply is dropped. */
  settled: boolean;
}

/**
 * One worker thread answering typed requests (`serveRpc` on its side). The thread is referenced
 * only while a request is pending, so an idle worker never keeps the process alive. A worker that
 * crashes or exits fails every pending request and every later one; whoever owns it replaces it
 * (`onStop`).
 */
export class WorkerClient<P extends RpcProtocol> {
  private readonly worker: Worker;
  private readonly waiting: Call[] = [];
  private readonly running = new Map<number, Call>();
  private nextId = 1;
  private stopped: Error | undefined;
  /** Replies received, aborted calls' included (for tests and metrics). */
  completed = 0;

  constructor(private readonly options: WorkerClientOptions) {
    const entry = workerEntry(options.module.base, options.module.name);
    // From source the shim registers tsx itself; inherited flags (`--import tsx`) would do it twice.
    this.worker = new Worker(entry.url, {
      workerData: options.workerData,
      ...(entry.fromSource ? { execArgv: [] } : {}),
    });
    this.worker.unref();
    this.worker.on('message', (reply: RpcReply<P>) => this.settle(reply));
    this.worker.on('error', (err) => this.stop(err));
    this.worker.on('exit', (code) => this.stop(new Error(`${options.name} worker exited with code ${code}`)));
  }

  /** The worker thread's id. */
  get threadId(): number {
    return this.worker.threadId;
  }

  /** Requests sent and not yet answered by the worker (aborted ones included until their reply). */
  get inFlight(): number {
    return this.running.size;
  }

  call<T extends keyof P & string>(type: T, body: P[T]['request'], options: CallOptions = {}): Promise<P[T]['reply']> {
    if (this.stopped !== undefined) return Promise.reject(this.stopError(this.stopped));
    const { signal, transfer = [] } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<P[T]['reply']>((resolve, reject) => {
      const id = this.nextId++;
      const call: Call = {
        id,
        message: { id, type, body } satisfies RpcRequest<P>,
        transfer,
        signal,
        resolve: resolve as (body: unknown) => void,
        reject,
        settled: false,
        onAbort: () => {
          if (call.settled) return;
          call.settled = true;
          const queued = this.waiting.indexOf(call);
          if (queued !== -1) this.waiting.splice(queued, 1);
          this.holdWhileBusy();
          reject(signal?.reason);
        },
      };
      signal?.addEventListener('abort', call.onAbort, { once: true });
      this.waiting.push(call);
      this.pump();
    });
  }

  /**
   * Fails what is pending and stops the thread: it is asked to end itself once the call it is in
   * returns (a native call cut short by `terminate()` can abort the process), and terminated only
   * if it has not within `graceMs`.
   */
  async close(reason = `${this.options.name} worker is closed`, graceMs = 3_000): Promise<void> {
    const alive = this.stopped === undefined;
    this.stop(new Error(reason));
    if (!alive) return;
    const exited = once(this.worker, 'exit', { signal: AbortSignal.timeout(graceMs) });
    this.worker.postMessage(exitRequest);
    // held until it exits: the grace timer does not hold the process, so a script awaiting close()
    // would otherwise end at this await (Node's exit code 13, a top-level await never settled)
    this.worker.ref();
    try {
      await exited;
    } catch (err) {
      // Timed out (a call that does not return): the thread is terminated instead.
      if (!(err instanceof Error && err.name === 'AbortError')) throw err;
      await this.worker.terminate();
    }
  }

  private pump(): void {
    const limit = this.options.maxInFlight ?? Infinity;
    while (this.stopped === undefined && this.running.size < limit) {
      const call = this.waiting.shift();
      if (call === undefined) break;
      this.running.set(call.id, call);
      this.worker.postMessage(call.message, call.transfer);
    }
    this.holdWhileBusy();
  }

  private holdWhileBusy(): void {
    if (this.running.size + this.waiting.length > 0) this.worker.ref();
    else this.worker.unref();
  }

  private settle(reply: RpcReply<P>): void {
    const call = this.running.get(reply.id);
    if (call === undefined) return;
    this.running.delete(reply.id);
    this.completed++;
    call.signal?.removeEventListener('abort', call.onAbort);
    if (!call.settled) {
      call.settled = true;
      if (reply.ok) call.resolve(reply.body);
      else call.reject(this.options.replyError?.(reply.message) ?? new Error(reply.message));
    }
    this.pump();
  }

  private stop(cause: Error): void {
    if (this.stopped !== undefined) return;
    this.stopped = cause;
    const error = this.stopError(cause);
    for (const call of [...this.running.values(), ...this.waiting.splice(0)]) {
      call.signal?.removeEventListener('abort', call.onAbort);
      if (!call.settled) {
        call.settled = true;
        call.reject(error);
      }
    }
    this.running.clear();
    this.worker.unref();
    this.options.onStop?.(cause);
  }

  private stopError(cause: Error): Error {
    return this.options.stopError?.(cause) ?? cause;
  }
}
