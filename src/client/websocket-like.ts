/** An event handler property, checked bivariantly like a method, so each implementation's own event types fit. */
type Handler<E> = { bivarianceHack(event: E): void }['bivarianceHack'];

/**
 * The part of the WHATWG WebSocket the client uses, so it runs on the browser's WebSocket, Node 22's
 * global one, or the `ws` package's (`new VoiceConnection({ WebSocket })` on Node 20).
 */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  send(data: string | ArrayBufferLike | ArrayBufferView): void;
  close(code?: number, reason?: string): void;
  onopen: Handler<unknown> | null;
  onmessage: Handler<{ data: unknown }> | null;
  onclose: Handler<{ code: number; reason: string }> | null;
  onerror: Handler<unknown> | null;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** WebSocket.OPEN in every implementation. */
export const socketOpen = 1;
