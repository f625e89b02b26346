import type { ServerResponse } from 'node:http';

/**
 * How an upstream misbehaves: what a fault does to the answer a healthy server would have written.
 * The same kinds apply to every stage (STT, LLM, TTS, webhook, tool), so one table of expected
 * outcomes covers the matrix.
 */
export const faultKinds = [
  /** 404 with a JSON error body. */
  'http_404',
  /** 500 with a JSON error body. */
  'http_500',
  /** 429 with `Retry-After` and a JSON error body. */
  'http_429',
  /** Headers never come: the request is held open until the client leaves. */
  'hang',
  /** The first chunk of the body, then the socket is reset (RST). */
  'reset',
  /** 200 with the stage's content type and a body that is not what it says (malformed JSON, SSE or audio). */
  'garbage',
  /** 200 with an empty body. */
  'empty',
  /** The first chunk of the body, then the connection is closed (FIN) before the body is complete. */
  'cut',
  /** The first chunk at once, then the rest a few bytes at a time with `dripGapMs` stalls between them. */
  'drip',
] as const;

export type FaultKind = (typeof faultKinds)[number];

export interface Fault {
  kind: FaultKind;
  /** Hold the request this long before misbehaving (the call is in flight meanwhile). */
  holdMs?: number;
}

/** A healthy answer: its status line and headers, and its body in the chunks a real server writes. */
export interface HealthyReply {
  contentType: string;
  /** Chunked transfer (SSE, audio) rather than a Content-Length. */
  chunked: boolean;
  chunks: Buffer[];
  /** A malformed answer (`garbage`): a body that is not what its content type says, or not the stage's kind. */
  garbage: { contentType: string; body: Buffer };
}

export interface DeliveryOptions {
  /** The stall between two pieces of a `drip`. */
  dripGapMs: number;
  /** Resolves when the client has gone (or the server closes). */
  gone: Promise<void>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Writes `healthy` as it is (fault null) or as `fault` mangles it. Resolves once the response is
 * over: ended, destroyed, or (hang, drip) abandoned by the client.
 */
export async function deliver(
  res: ServerResponse,
  healthy: HealthyReply,
  fault: Fault | null,
  options: DeliveryOptions,
): Promise<void> {
  let left = false;
  void options.gone.then(() => (left = true));
  if (fault?.holdMs !== undefined && fault.holdMs > 0) await Promise.race([pause(fault.holdMs), options.gone]);
  if (left) return;
  const body = Buffer.concat(healthy.chunks);
  const headers: Record<string, string | number> = { 'Content-Type': healthy.contentType };
  if (!healthy.chunked) headers['Content-Length'] = body.length;
  switch (fault?.kind) {
    case undefined:
      res.writeHead(200, headers);
      for (const chunk of healthy.chunks) {
        if (left) return;
        res.write(chunk);
        await pause(2);
      }
      res.end();
      return;
    case 'http_404':
    case 'http_500':
    case 'http_429': {
      const status = Number(fault.kind.slice(5));
      const error = JSON.stringify({ error: { message: `injected ${status}`, type: 'injected', code: null } });
      res.writeHead(status, {
        'Content-Type': 'application/json',
        ...(status === 429 ? { 'Retry-After': '1' } : {}),
      });
      res.end(error);
      return;
    }
    case 'hang':
      await options.gone;
      return;
    case 'reset':
    case 'cut': {
      res.writeHead(200, headers);
      res.write(healthy.chunks[0] ?? Buffer.alloc(0));
      await pause(20); // the first chunk reaches the client before the connection goes
      if (fault.kind === 'reset') res.socket?.resetAndDestroy();
      else res.socket?.end();
      return;
    }
    case 'garbage':
      res.writeHead(200, {
        'Content-Type': healthy.garbage.contentType,
        'Content-Length': healthy.garbage.body.length,
      });
      res.end(healthy.garbage.body);
      return;
    case 'empty':
      res.writeHead(200, { 'Content-Type': healthy.contentType, 'Content-Length': 0 });
      res.end();
      return;
    case 'drip': {
      res.writeHead(200, headers);
      const first = healthy.chunks[0] ?? Buffer.alloc(0);
      const rest = body.subarray(first.length);
      res.write(first);
      const piece = Math.max(1, Math.ceil(rest.length / 16));
      for (let at = 0; at < rest.length; at += piece) {
        await Promise.race([pause(options.dripGapMs), options.gone]);
        if (left) return;
        res.write(rest.subarray(at, at + piece));
      }
      res.end();
      return;
    }
  }
}
