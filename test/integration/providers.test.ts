import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providersHealthSchema } from '../../src/http/routes/health/health.schema.js';
import { providers as catalog } from '../../src/schemas/provider-catalog.js';
import type { ModelManifest } from '../../src/providers/models/model-manifest.js';
import type { ProviderRegistryOptions } from '../../src/providers/registry.js';
import { providerAvailabilitySchema } from '../../src/schemas/preset.js';
import { tinyGguf } from '../../scripts/make-tiny-gguf.js';
import { FakeOpenAiRealtime } from '../support/fake-openai-realtime.js';
import { FakeDeepgram } from '../support/fake-deepgram.js';
import { FakeElevenLabs } from '../support/fake-elevenlabs.js';
import { startParley, type TestParley } from '../support/parley.js';
import { freePort, TestRedis } from '../support/redis-server.js';

/**
 * The random-weight GGUF (scripts/make-tiny-gguf.ts) under the file name local-llama expects, and
 * a manifest that pins its size and sha256 in place of Qwen2.5's.
 */
const ggufDir = mkdtempSync(join(tmpdir(), 'parley-gguf-'));
const gguf = tinyGguf();
writeFileSync(join(ggufDir, 'qwen2.5-0.5b-instruct-q4_k_m.gguf'), gguf);
const qwenPinnedToFixture: ModelManifest = {
  version: 1,
  models: [
    {
      id: 'Qwen/Qwen2.5-0.5B-Instruct-GGUF',
      task: 'llm',
      default: true,
      description: 'the tiny GGUF fixture',
      license: 'apache-2.0',
      source: { hub: 'huggingface', repo: 'Qwen/Qwen2.5-0.5B-Instruct-GGUF', revision: 'main' },
      files: [
        {
          path: 'qwen2.5-0.5b-instruct-q4_k_m.gguf',
          size: gguf.length,
          sha256: createHash('sha256').update(gguf).digest('hex'),
        },
      ],
    },
  ],
};

/** The test models (test/support/test-models.ts) are named after what they are, not after the catalog ids. */
const fixtureAliases: ProviderRegistryOptions = {
  modelAliases: {
    'Xenova/whisper-tiny.en': 'tiny-random-whisper',
    'Xenova/mms-tts-eng': 'tiny-random-vits-tts',
    'Xenova/all-MiniLM-L6-v2': 'minilm-l6-random',
    'Qwen/Qwen2.5-0.5B-Instruct-GGUF': ggufDir,
  },
  manifest: qwenPinnedToFixture,
  checkCacheMs: 60_000,
};

/** A stand-in OpenAI-compatible server: answers GET /v1/models with `status`, or never when status is null. */
class Upstream {
  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
    readonly requests: { method: string; url: string; authorization: string | undefined }[],
  ) {}

  static async start(status: number | null): Promise<Upstream> {
    const requests: Upstream['requests'] = [];
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
      if (status === null) return; // hangs until closed
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(
        status < 300
          ? JSON.stringify({ object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model' }] })
          : '{"error":"boom"}',
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('no address');
    return new Upstream(server, `http://127.0.0.1:${address.port}/v1`, requests);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The OpenAI-compatible HTTP providers, which one `GET /models` checks. */
const openAiCompatible = catalog.filter((p) => p.kind === 'remote' && p.provider === 'openai');
const key = (p: { capability: string; provider: string }) => `${p.capability}/${p.provider}`;

let redis: TestRedis;
beforeAll(async () => {
  redis = await TestRedis.start();
});
afterAll(async () => {
  await redis?.close();
  rmSync(ggufDir, { recursive: true, force: true });
});

describe('with every provider configured', () => {
  let upstream: Upstream;
  let realtime: FakeOpenAiRealtime;
  let deepgram: FakeDeepgram;
  let elevenlabs: FakeElevenLabs;
  let p: TestParley;

  beforeAll(async () => {
    upstream = await Upstream.start(200);
    realtime = await FakeOpenAiRealtime.start({ apiKey: 'sk-test-key' });
    deepgram = await FakeDeepgram.start({ apiKey: 'dg-test-key' });
    elevenlabs = await FakeElevenLabs.start();
    p = await startParley(
      redis,
      {
        OPENAI_BASE_URL: upstream.baseUrl,
        OPENAI_API_KEY: 'sk-test-key',
        PARLEY_OPENAI_REALTIME_URL: realtime.url,
        PARLEY_DEEPGRAM_API_KEY: 'dg-test-key',
        PARLEY_DEEPGRAM_URL: deepgram.url,
        PARLEY_ELEVENLABS_API_KEY: elevenlabs.apiKey,
        PARLEY_ELEVENLABS_URL: elevenlabs.url,
      },
      { providers: fixtureAliases },
    );
  });
  afterAll(async () => {
    await p?.close();
    await upstream?.close();
    await realtime?.close();
    await deepgram?.close();
    await elevenlabs?.close();
  });

  it('GET /health/providers probes each provider once and caches the result', async () => {
    const res = await p.request('GET', '/health/providers', { apiKey: null });
    expect(res.status).toBe(200);
    const body = providersHealthSchema.parse(res.body);
    expect(body.status).toBe('ok');
    expect(body.providers.map(key).sort()).toEqual(catalog.map(key).sort());
    for (const check of body.providers) {
      expect(check, key(check)).toMatchObject({ status: 'ok', latency_ms: expect.any(Number) });
    }
    expect(body.providers.find((c) => c.provider === 'local-whisper')?.detail).toContain('Xenova/whisper-tiny.en');

    // One request serves all OpenAI-compatible capabilities, with the key, and the next call is cached.
    expect(upstream.requests).toEqual([{ method: 'GET', url: '/v1/models', authorization: 'Bearer sk-test-key' }]);
    // openai-realtime: a transcription session opened with the key and closed, no audio sent
    expect(realtime.connections.map((c) => [c.headers.authorization, c.received])).toEqual([
      ['Bearer sk-test-key', []],
    ]);
    // ElevenLabs: GET /v1/user with its key, no stream opened (no characters spent).
    expect(elevenlabs.userCalls).toEqual([{ key: elevenlabs.apiKey }]);
    expect(elevenlabs.connections).toEqual([]);
    const again = await p.request('GET', '/health/providers', { apiKey: null });
    // The model files on disk are scanned again once the last scan is modelScanMs (1 s) old, which a
    // loaded machine can reach between the two requests: their latency_ms (the scan's time) may
    // differ, nothing else; the remote probes come from the cache (counted below).
    const scanTimeless = (body: typeof res.body) => ({
      ...body,
      providers: body.providers.map((c: { detail: string | null }) =>
        c.detail?.startsWith('installed:') ? { ...c, latency_ms: 'the scan' } : c,
      ),
    });
    expect(scanTimeless(again.body)).toEqual(scanTimeless(res.body));
    expect(upstream.requests).toHaveLength(1);
    expect(realtime.connections).toHaveLength(1);
    // Deepgram: one stream opened with the key and closed at once (CloseStream), no audio; cached too.
    expect(deepgram.streams.map((s) => [s.samples, s.controls])).toEqual([[0, ['Finalize', 'CloseStream']]]);
  });

  it('GET /admin/v1/presets/available lists every catalog provider as configured', async () => {
    const res = await p.request('GET', '/admin/v1/presets/available');
    expect(res.status).toBe(200);
    const data = res.body.data.map((d: unknown) => providerAvailabilitySchema.strict().parse(d));
    expect(data.map(key)).toEqual(catalog.map(key));
    for (const entry of data) expect(entry, key(entry)).toMatchObject({ configured: true, reason: null });

    const espeak = data.find((d: { provider: string }) => d.provider === 'espeak');
    // The voices espeak-ng really has, not the catalog's short list.
    expect(espeak.voices).toEqual(expect.arrayContaining(['en', 'en-us', 'en-gb', 'de', 'fr']));
    expect(espeak.voices.length).toBeGreaterThan(catalog.find((c) => c.provider === 'espeak')!.voices.length);
    expect(espeak.default_voice).toBe('en-us');
    // flite: the voices Parley offers that `flite -lv` lists (here all of them).
    const flite = data.find((d: { provider: string }) => d.provider === 'flite');
    expect(flite).toMatchObject({
      kind: 'binary',
      voices: ['slt', 'rms', 'awb', 'kal16', 'kal'],
      default_voice: 'slt',
    });

    // Local providers list the models that are installed.
    const whisper = data.find((d: { provider: string }) => d.provider === 'local-whisper');
    expect(whisper).toMatchObject({ models: ['Xenova/whisper-tiny.en'], default_model: 'Xenova/whisper-tiny.en' });
    const openaiTts = data.find((d: { capability: string; provider: string }) => key(d) === 'tts/openai');
    expect(openaiTts).toMatchObject({ any_model: true, default_voice: 'alloy', kind: 'remote' });
  });

  it('filters by ?capability= and rejects an unknown capability', async () => {
    const tts = await p.request('GET', '/admin/v1/presets/available?capability=tts');
    expect(tts.status).toBe(200);
    expect(tts.body.data.map(key)).toEqual(catalog.filter((c) => c.capability === 'tts').map(key));

    const bogus = await p.request('GET', '/admin/v1/presets/available?capability=bogus');
    expect(bogus.status).toBe(400);
    expect(bogus.body.error.code).toBe('validation_error');
    expect(bogus.body.error.details).toEqual([{ path: 'query.capability', message: expect.any(String) }]);

    const unauth = await p.request('GET', '/admin/v1/presets/available', { apiKey: null });
    expect(unauth.status).toBe(401);
  });
});

describe('with a failing upstream', () => {
  const upstreams: Upstream[] = [];
  const parleys: TestParley[] = [];
  afterAll(async () => {
    for (const p of parleys) await p.close();
    for (const u of upstreams) await u.close();
  });

  async function checksAgainst(baseUrl: string, options: ProviderRegistryOptions = {}) {
    const p = await startParley(redis, { OPENAI_BASE_URL: baseUrl }, { providers: { ...fixtureAliases, ...options } });
    parleys.push(p);
    const res = await p.request('GET', '/health/providers', { apiKey: null });
    expect(res.status).toBe(200);
    return providersHealthSchema.parse(res.body);
  }

  it('reports HTTP 500 as error and the whole as degraded', async () => {
    const upstream = await Upstream.start(500);
    upstreams.push(upstream);
    const body = await checksAgainst(upstream.baseUrl);
    expect(body.status).toBe('degraded');
    const remote = body.providers.filter((c) => c.provider === 'openai');
    expect(remote).toHaveLength(openAiCompatible.length);
    expect(remote).toHaveLength(openAiCompatible.length);
    for (const check of remote) {
      expect(check).toMatchObject({
        status: 'error',
        latency_ms: expect.any(Number),
        detail: expect.stringContaining('HTTP 500'),
      });
    }
    // No key configured: no Authorization header is sent.
    expect(upstream.requests).toEqual([{ method: 'GET', url: '/v1/models', authorization: undefined }]);
    expect(body.providers.find((c) => c.provider === 'espeak')?.status).toBe('ok');
  });

  it('reports an upstream that does not answer in time', async () => {
    const upstream = await Upstream.start(null);
    upstreams.push(upstream);
    const body = await checksAgainst(upstream.baseUrl, { probeTimeoutMs: 200 });
    expect(body.status).toBe('degraded');
    expect(body.providers.find((c) => key(c) === 'llm/openai')).toMatchObject({
      status: 'error',
      latency_ms: null,
      detail: 'GET /models failed: no answer within 200 ms',
    });
  });

  it('reports an upstream nobody listens on', async () => {
    const body = await checksAgainst(`http://127.0.0.1:${await freePort()}/v1`);
    expect(body.status).toBe('degraded');
    expect(body.providers.find((c) => key(c) === 'stt/openai')).toMatchObject({
      status: 'error',
      detail: 'GET /models failed: connection refused',
    });
  });
});

describe('with nothing configured', () => {
  let p: TestParley;
  let brokenModels: string;
  let broken: TestParley;

  beforeAll(async () => {
    p = await startParley(redis, {
      PARLEY_ESPEAK_BIN: '/nonexistent/espeak-ng',
      PARLEY_FLITE_BIN: '/nonexistent/flite',
      PARLEY_POCKETSPHINX_MODEL_DIR: '/nonexistent/pocketsphinx',
    });
    // A model folder that looks installed (config.json, onnx/) but holds no weights.
    brokenModels = mkdtempSync(join(tmpdir(), 'parley-models-'));
    mkdirSync(join(brokenModels, 'Xenova', 'whisper-tiny.en', 'onnx'), { recursive: true });
    writeFileSync(join(brokenModels, 'Xenova', 'whisper-tiny.en', 'config.json'), '{}');
    broken = await startParley(redis, { MODELS_DIR: brokenModels });
  });
  afterAll(async () => {
    await p?.close();
    await broken?.close();
    if (brokenModels !== undefined) rmSync(brokenModels, { recursive: true, force: true });
  });

  it('marks every provider not_configured with a reason, and is not degraded', async () => {
    const res = await p.request('GET', '/health/providers', { apiKey: null });
    const body = providersHealthSchema.parse(res.body);
    expect(body.status).toBe('ok');
    for (const check of body.providers) {
      expect(check, key(check)).toMatchObject({
        status: 'not_configured',
        latency_ms: null,
        detail: expect.any(String),
      });
    }
    expect(body.providers.find((c) => c.provider === 'espeak')?.detail).toContain('PARLEY_ESPEAK_BIN');
    expect(body.providers.find((c) => c.provider === 'flite')?.detail).toBe(
      'PARLEY_FLITE_BIN (/nonexistent/flite) did not run: program not found; install the Debian package flite, or set PARLEY_FLITE_BIN',
    );
    expect(body.providers.find((c) => key(c) === 'llm/openai')?.detail).toContain('OPENAI_API_KEY');
    expect(body.providers.find((c) => key(c) === 'tts/elevenlabs')?.detail).toBe('set PARLEY_ELEVENLABS_API_KEY');
  });

  it('GET /admin/v1/presets/available says why each provider is unusable', async () => {
    const res = await p.request('GET', '/admin/v1/presets/available');
    expect(res.status).toBe(200);
    expect(res.body.data.map(key)).toEqual(catalog.map(key));
    for (const entry of res.body.data) {
      expect(entry, key(entry)).toMatchObject({ configured: false, reason: expect.any(String) });
    }
    const espeak = res.body.data.find((d: { provider: string }) => d.provider === 'espeak');
    expect(espeak.voices).toEqual(catalog.find((c) => c.provider === 'espeak')!.voices);
    const flite = res.body.data.find((d: { provider: string }) => d.provider === 'flite');
    expect(flite).toMatchObject({ voices: catalog.find((c) => c.provider === 'flite')!.voices, default_voice: 'slt' });
    expect(flite.reason).toContain('Debian package flite');
    const whisper = res.body.data.find((d: { provider: string }) => d.provider === 'local-whisper');
    expect(whisper.models).toEqual(catalog.find((c) => c.provider === 'local-whisper')!.models);
    expect(whisper.reason).toContain('MODELS_DIR');
  });

  it('reports a model folder without weights as invalid, in presets/available and health alike', async () => {
    const problem = 'no .onnx file in onnx/; re-download it with npm run models -- --only Xenova/whisper-tiny.en';
    const available = await broken.request('GET', '/admin/v1/presets/available?capability=stt');
    expect(available.body.data.find((d: { provider: string }) => d.provider === 'local-whisper')).toMatchObject({
      configured: false,
      reason: `Xenova/whisper-tiny.en is invalid: ${problem}`,
      local_models: [{ model: 'Xenova/whisper-tiny.en', status: 'invalid', size_bytes: null, problem }],
    });
    const res = await broken.request('GET', '/health/providers', { apiKey: null });
    const body = providersHealthSchema.parse(res.body);
    expect(body.status).toBe('degraded');
    expect(body.providers.find((c) => c.provider === 'local-whisper')).toMatchObject({
      status: 'error',
      detail: `Xenova/whisper-tiny.en is invalid: ${problem}`,
    });
  });
});
