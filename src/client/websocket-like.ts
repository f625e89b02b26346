/**
 * The part of the WHATWG WebSocket the client uses, so it runs on the browser's WebSocket, Node 22's
 * global one, or the `ws` package's (`new VoiceConnection({ WebSocket })` on Node 20).
 */
export interface WebSocketLike {
  binaryType: string;
  readonly readyState: number;
  send(data: string | ArrayBufferLike | ArrayBufferView): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** WebSocket.OPEN in every implementation. */
export const socketOpen = 1;
