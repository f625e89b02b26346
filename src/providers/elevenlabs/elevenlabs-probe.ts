import type { Config } from '../../config/config.js';
import { describeError, roundMs } from '../status/describe-error.js';
import { httpBaseOf } from './elevenlabs-protocol.js';

/** Why `elevenlabs` cannot be used here, or null when it can: it needs its key. */
export function elevenLabsProblem(config: Config): string | null {
  return config.elevenlabs.apiKey === undefined ? 'set PARLEY_ELEVENLABS_API_KEY' : null;
}

/** A /health/providers check of `elevenlabs`, without its capability and provider. */
export interface ElevenLabsCheck {
  status: 'ok' | 'not_configured' | 'error';
  latency_ms: number | null;
  detail: string | null;
}

/**
 * `GET /v1/user` with the key (`xi-api-key`): the cheapest call that proves the key works. Sends
 * no text and opens no stream, so it costs no characters.
 */
export async function probeElevenLabs(config: Config, timeoutMs: number): Promise<ElevenLabsCheck> {
  const problem = elevenLabsProblem(config);
  const { apiKey, url } = config.elevenlabs;
  if (problem !== null || apiKey === undefined) return { status: 'not_configured', latency_ms: null, detail: problem };
  const start = performance.now();
  try {
    const res = await fetch(`${httpBaseOf(url)}/v1/user`, {
      headers: { 'xi-api-key': apiKey },
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel();
    const latency = roundMs(performance.now() - start);
    if (res.ok) return { status: 'ok', latency_ms: latency, detail: null };
    return { status: 'error', latency_ms: latency, detail: `GET /v1/user answered HTTP ${res.status}` };
  } catch (err) {
    const detail =
      err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : describeError(err);
    return { status: 'error', latency_ms: null, detail: `GET /v1/user failed: ${detail}` };
  }
}
