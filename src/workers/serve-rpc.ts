import { parentPort } from 'node:worker_threads';
import { exitRequest, isExitRequest, type RpcProtocol, type RpcReply, type RpcRequest } from './rpc-protocol.js';

export type RpcHandlers<P extends RpcProtocol> = {
  [T in keyof P & string]: (body: P[T]['request']) => Promise<P[T]['reply']>;
};

/** Buffers of a reply to move to the main thread instead of copying them. */
export type RpcTransfers<P extends RpcProtocol> = {
  [T in keyof P & string]?: (reply: P[T]['reply']) => ArrayBuffer[];
};

/**
 * Worker-thread side of a `WorkerClient`: answers each request with its handler, one at a time in
 * arrival order (so a worker keeps one inference running on its own ONNX Runtime threads). A
 * handler that throws answers `ok: false` with the message; the worker keeps serving. The exit
 * request ends the thread once every request before it has been answered.
 */
export function serveRpc<P extends RpcProtocol>(handlers: RpcHandlers<P>, transfers: RpcTransfers<P> = {}): void {
  const port = parentPort;
  if (port === null) throw new Error('serveRpc runs only inside a worker thread');
  let queue: Promise<void> = Promise.resolve();
  port.on('message', (req: RpcRequest<P> | typeof exitRequest) => {
    if (isExitRequest(req)) {
      queue = queue.then(() => {
        port.close();
        process.exit(0); // in a worker thread: ends this thread, between calls
      });
      return;
    }
    queue = queue.then(async () => {
      const type: keyof P & string = req.type;
      let reply: RpcReply<P>;
      let transfer: ArrayBuffer[] = [];
      try {
        const body = await handlers[type](req.body);
        reply = { id: req.id, ok: true, type, body } as RpcReply<P>;
        transfer = transfers[type]?.(body) ?? [];
      } catch (err) {
        reply = { id: req.id, ok: false, message: err instanceof Error ? err.message : String(err) };
      }
      port.postMessage(reply, transfer);
    });
  });
}
