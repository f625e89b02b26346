import { authHeaders, listenUrl, type DeepgramOptions } from './deepgram-options.js';
import { DeepgramStream } from './deepgram-stream.js';

/** The model the probe's stream names: the catalog default, which every Deepgram account has. */
const probeModel = 'nova-3';

/**
 * Whether Deepgram answers here with this key: a `/v1/listen` stream opened (the handshake checks
 * the key and the parameters) and closed at once with `CloseStream`, no audio sent. Resolves with
 * the round trip in ms; rejects with the ProviderError that a stream would fail with.
 */
export async function probeDeepgram(
  options: Pick<DeepgramOptions, 'apiKey' | 'url'>,
  timeoutMs: number,
): Promise<{ latencyMs: number }> {
  const url = listenUrl(options, { model: probeModel, sampleRate: 16_000, language: null });
  const start = performance.now();
  const stream = new DeepgramStream(url, authHeaders(options.apiKey), timeoutMs);
  await stream.finish();
  return { latencyMs: performance.now() - start };
}
