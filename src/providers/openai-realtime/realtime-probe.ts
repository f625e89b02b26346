import { roundMs } from '../status/describe-error.js';
import {
  closedReason,
  connectRealtime,
  defaultRealtimeUrl,
  realtimeReason,
  unreachableReason,
  type RealtimeEndpoint,
} from './realtime-connection.js';
import { describeRealtimeError, parseServerEvent } from './realtime-events.js';

export interface RealtimeProbe {
  status: 'ok' | 'not_configured' | 'error';
  latency_ms: number | null;
  detail: string | null;
}

/**
 * The health check of `openai-realtime`: opens a transcription session and closes it as soon as
 * the server says `session.created` (the key is taken, the endpoint speaks the protocol). No
 * audio is sent, so nothing is transcribed or billed; latency is the time to `session.created`.
 */
export function probeRealtime(endpoint: RealtimeEndpoint, timeoutMs: number): Promise<RealtimeProbe> {
  const reason = realtimeReason(endpoint);
  if (reason !== null) return Promise.resolve({ status: 'not_configured', latency_ms: null, detail: reason });
  const start = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const settle = (probe: RealtimeProbe): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (ws.readyState === ws.OPEN) ws.close(1000);
      else if (ws.readyState === ws.CONNECTING) ws.terminate();
      resolve(probe);
    };
    const failed = (detail: string): void => settle({ status: 'error', latency_ms: null, detail });
    const ws = connectRealtime(endpoint, failed);
    const timer = setTimeout(() => failed(`no session.created within ${timeoutMs} ms`), timeoutMs);
    ws.on('message', (data) => {
      const event = parseServerEvent(String(data));
      if (event?.type === 'session.created') {
        const host = new URL(endpoint.url ?? defaultRealtimeUrl).host;
        settle({
          status: 'ok',
          latency_ms: roundMs(performance.now() - start),
          detail: `transcription session at ${host}`,
        });
      } else if (event?.type === 'error') failed(`the server reported an error: ${describeRealtimeError(event.error)}`);
      else failed('the server did not open a transcription session (no session.created)');
    });
    ws.on('error', (err) => failed(unreachableReason(endpoint, err)));
    ws.on('close', (code, why) => failed(closedReason(code, String(why))));
  });
}
