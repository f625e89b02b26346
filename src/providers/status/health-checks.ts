import { providers as catalog, type Capability, type ProviderInfo } from '../../schemas/provider-catalog.js';
import { programOf, remoteReason, type StatusSources } from './availability.js';
import { describeError, roundMs } from './describe-error.js';
import { probeRealtime } from '../openai-realtime/realtime-probe.js';
import { deepgramProblem } from '../deepgram/deepgram-options.js';
import { probeDeepgram } from '../deepgram/deepgram-probe.js';
import { probeElevenLabs } from '../elevenlabs/elevenlabs-probe.js';
import { pocketsphinxProblem } from '../pocketsphinx/sphinx-probe.js';
import { ModelFolders } from './model-folders.js';
import { isModelProvider, type ModelSnapshot } from './model-inventory.js';

export interface ProviderCheck {
  capability: Capability;
  provider: string;
  status: 'ok' | 'not_configured' | 'error';
  latency_ms: number | null;
  detail: string | null;
}

type Outcome = Omit<ProviderCheck, 'capability' | 'provider'>;

const defaultOpenAiBaseUrl = 'https://api.openai.com/v1';

/**
 * Probes every catalog provider but the local model ones concurrently, for /health/providers (the
 * registry caches the result): one `GET /models` serves every OpenAI-compatible capability
 * (`openai-realtime` opens a transcription session and closes it, realtime-probe.ts), Deepgram
 * opens a stream and closes it at once, `GET /v1/user` checks the ElevenLabs key, espeak-ng and
 * flite synthesize one word, PocketSphinx's library and files must load. Never sends audio anywhere.
 */
export async function runProbes(from: StatusSources, probeTimeoutMs: number): Promise<ProviderCheck[]> {
  let remote: Promise<Outcome> | undefined;
  return Promise.all(
    catalog
      .filter((info) => !isModelProvider(info))
      .map(async (info): Promise<ProviderCheck> => {
        const id = { capability: info.capability, provider: info.provider };
        try {
          if (info.provider === 'openai-realtime')
            return { ...id, ...(await probeRealtime(from.config.openaiRealtime, probeTimeoutMs)) };
          if (info.provider === 'deepgram') return { ...id, ...(await checkDeepgram(from, probeTimeoutMs)) };
          if (info.provider === 'elevenlabs') return { ...id, ...(await probeElevenLabs(from.config, probeTimeoutMs)) };
          if (info.kind === 'remote') {
            remote ??= checkRemote(from, probeTimeoutMs);
            return { ...id, ...(await remote) };
          }
          if (info.provider === 'pocketsphinx') return { ...id, ...(await checkPocketsphinx(from)) };
          return { ...id, ...(await checkProgram(info, from)) };
        } catch (err) {
          return { ...id, status: 'error', latency_ms: null, detail: describeError(err) };
        }
      }),
  );
}

/**
 * Every catalog provider's check in catalog order: the probes' results, and the local model
 * providers' read from the model snapshot (the one readiness reads, so the two always agree).
 */
export function providerChecks(probed: readonly ProviderCheck[], models: ModelSnapshot): ProviderCheck[] {
  return catalog.map((info) => {
    if (isModelProvider(info))
      return { capability: info.capability, provider: info.provider, ...checkLocal(info, models) };
    const check = probed.find((c) => c.capability === info.capability && c.provider === info.provider);
    if (check === undefined) throw new Error(`no probe of ${info.capability}/${info.provider}`);
    return check;
  });
}

async function checkRemote(from: StatusSources, timeoutMs: number): Promise<Outcome> {
  const reason = remoteReason(from.config);
  if (reason !== null) return { status: 'not_configured', latency_ms: null, detail: reason };
  const { apiKey, baseUrl } = from.config.openai;
  const url = `${(baseUrl ?? defaultOpenAiBaseUrl).replace(/\/+$/, '')}/models`;
  const start = performance.now();
  try {
    const res = await fetch(url, {
      headers: apiKey === undefined ? {} : { Authorization: `Bearer ${apiKey}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel();
    const latency = roundMs(performance.now() - start);
    if (res.ok) return { status: 'ok', latency_ms: latency, detail: null };
    return { status: 'error', latency_ms: latency, detail: `GET /models answered HTTP ${res.status}` };
  } catch (err) {
    const detail =
      err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : describeError(err);
    return { status: 'error', latency_ms: null, detail: `GET /models failed: ${detail}` };
  }
}

/** A `/v1/listen` handshake with the key, closed at once (CloseStream): no audio, nothing to bill. */
async function checkDeepgram(from: StatusSources, timeoutMs: number): Promise<Outcome> {
  const reason = deepgramProblem(from.config.deepgram);
  if (reason !== null) return { status: 'not_configured', latency_ms: null, detail: reason };
  try {
    const { latencyMs } = await probeDeepgram(from.config.deepgram, timeoutMs);
    return { status: 'ok', latency_ms: roundMs(latencyMs), detail: null };
  } catch (err) {
    return {
      status: 'error',
      latency_ms: null,
      detail: `/v1/listen: ${describeError(err).replace(/^deepgram: /, '')}`,
    };
  }
}

async function checkProgram(info: ProviderInfo, from: StatusSources): Promise<Outcome> {
  const program = programOf(info, from);
  const probe = await program.probe();
  if (!probe.ok) return { status: 'not_configured', latency_ms: null, detail: probe.problem };
  const voices = probe.voices.length > 0 ? probe.voices : info.voices;
  const voice = info.defaultVoice !== null && voices.includes(info.defaultVoice) ? info.defaultVoice : voices[0];
  return program.synthesize(voice);
}

/** Debian's PocketSphinx library loads and its en-US model files are readable. */
async function checkPocketsphinx(from: StatusSources): Promise<Outcome> {
  const start = performance.now();
  const problem = await pocketsphinxProblem(from.config.pocketsphinx.modelDir);
  if (problem !== null) return { status: 'not_configured', latency_ms: null, detail: problem };
  return {
    status: 'ok',
    latency_ms: roundMs(performance.now() - start),
    detail: `en-us model in ${from.config.pocketsphinx.modelDir}`,
  };
}

/** Installed models are ok; any invalid one (wrong size or sha256, not a GGUF, unreadable) is an error. */
function checkLocal(info: ProviderInfo, models: ModelSnapshot): Outcome {
  const found = models.of(info);
  if (found.length === 0)
    return { status: 'not_configured', latency_ms: null, detail: ModelFolders.missingReason(info) };
  const invalid = found.filter((m) => m.status === 'invalid');
  if (invalid.length > 0)
    return {
      status: 'error',
      latency_ms: models.scanMs,
      detail: invalid.map((m) => `${m.model} is invalid: ${m.problem ?? ''}`).join('; '),
    };
  return { status: 'ok', latency_ms: models.scanMs, detail: `installed: ${found.map((m) => m.model).join(', ')}` };
}
