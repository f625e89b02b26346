/**
 * The typed request/reply protocol between a main-thread `WorkerClient` and a worker's `serveRpc`.
 * A protocol is a map from request type to its request body and reply body, e.g.
 * `{ embed: { request: { texts: string[] }; reply: { data: Float32Array } } }`; both sides are
 * checked against the same map.
 */

export type RpcProtocol = Record<string, { request: object; reply: object }>;

export type RpcRequest<P extends RpcProtocol> = {
  [T in keyof P & string]: { id: number; type: T; body: P[T]['request'] };
}[keyof P & string];

export type RpcReply<P extends RpcProtocol> =
  | { [T in keyof P & string]: { id: number; ok: true; type: T; body: P[T]['reply'] } }[keyof P & string]
  | { id: number; ok: false; message: string };

/**
 * The one control message beside the protocol's requests: finish what is queued, then end the
 * thread (`WorkerClient.close`). Ending it from inside, between calls, never cuts a native call
 * (ONNX Runtime, llama.cpp, PocketSphinx through koffi) short: terminating a thread in the middle
 * of one aborts the whole process (node-addon-api's `Napi::Error` in a terminating environment).
 */
export const exitRequest = { exit: true } as const;

export function isExitRequest(message: unknown): message is typeof exitRequest {
  return typeof message === 'object' && message !== null && 'exit' in message && message.exit === true;
}
