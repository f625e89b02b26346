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
