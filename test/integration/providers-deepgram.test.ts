import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { ProviderTimeout } from '../../src/providers/call-deadline.js';
import { DeepgramStt } from '../../src/providers/deepgram/deepgram-stt.js';
import { probeDeepgram } from '../../src/providers/deepgram/deepgram-probe.js';
import { ProviderError, ProviderNotConfigured } from '../../src/providers/provider-error.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import type { SttStream } from '../../src/providers/stt.js';
import { eventually } from '../support/eventually.js';
import { FakeDeepgram } from '../support/fake-deepgram.js';

/**
 * The Deepgram provider against a local server speaking Deepgram's live protocol (handshake,
 * Results, Finalize, CloseStream, Metadata, close codes), its faults included.
 */

let fake: FakeDeepgram;
const key = 'dg-test-key';
const request = { sampleRate: 16_000, model: 'nova-3', language: 'en', phrases: ['table for two'] };
/** 1 s of a 200 Hz tone: what the fake hears does not depend on it, only how much there is. */
const second = Int16Array.from({ length: 16_000 }, (_, i) =>
  Math.round(6000 * Math.sin((2 * Math.PI * 200 * i) / 16_000)),
);

const stt = (options: Partial<ConstructorParameters<typeof DeepgramStt>[0]> = {}) =>
  new DeepgramStt({ apiKey: key, url: fake.url, stallMs: 2_000, ...options });

/** Writes `audio` in 32 ms windows, `paceMs` apart (the VAD's pace at real time: 32). */
async function speak(stream: SttStream, audio: Int16Array, paceMs = 8): Promise<void> {
  for (let at = 0; at < audio.length; at += 512) {
    stream.write(audio.subarray(at, at + 512));
    await new Promise((r) => setTimeout(r, paceMs));
  }
}

beforeAll(async () => {
  fake = await FakeDeepgram.start({ apiKey: key, resultDelayMs: 50, interimEveryMs: 300, wordMs: 150 });
});
afterAll(async () => fake?.close());
beforeEach(() => {
  fake.apiKey = key;
  fake.reset();
});

describe('DeepgramStt streaming against a Deepgram-protocol server', () => {
  it('streams an utterance: interim words while it is spoken, then the punctuated final on finish', async () => {
    fake.script = ['I would like a table for two, please.'];
    const stream = stt().openStream(request);
    await speak(stream, second);
    await eventually(
      () => stream.partial,
      (p) => p !== '',
      { what: 'an interim transcript' },
    );
    expect('I would like a table for two, please.'.startsWith(stream.partial)).toBe(true);
    await expect(stream.finish()).resolves.toBe('I would like a table for two, please.');

    const [seen] = fake.streams;
    expect(seen!.ws.protocol).toBe('');
    expect(Object.fromEntries(seen!.params)).toMatchObject({
      model: 'nova-3',
      encoding: 'linear16',
      sample_rate: '16000',
      channels: '1',
      interim_results: 'true',
      punctuate: 'true',
      smart_format: 'true',
      language: 'en',
      keyterm: 'table for two',
    });
    expect(seen!.samples).toBe(second.length);
    expect(seen!.controls).toEqual(['Finalize', 'CloseStream']);
    // closed cleanly, by the client once the final came or by Deepgram after CloseStream
    await eventually(
      () => seen!.closed,
      (c) => c,
    );
    expect(seen!.clientClose?.code ?? seen!.serverClose?.code).toBe(1000);
  });

  it('resolves on the answer to Finalize, without waiting for the socket to close', async () => {
    fake.script = ['Table for two.'];
    fake.fail({ kind: 'stall', only: 'CloseStream' });
    const stream = stt({ stallMs: 5_000 }).openStream(request);
    await speak(stream, second.subarray(0, 8192));
    await expect(stream.finish()).resolves.toBe('Table for two.');
    // the client then closes it itself, cleanly
    await eventually(
      () => fake.streams[0]!.clientClose,
      (c) => c !== null,
    );
    expect(fake.streams[0]!.clientClose?.code).toBe(1000);
  });

  it('sends audio written during the handshake once it completes, in order', async () => {
    fake.script = ['Hello there.'];
    const stream = stt().openStream(request);
    stream.write(second.subarray(0, 4000));
    stream.write(second.subarray(4000, 8000));
    await expect(stream.finish()).resolves.toBe('Hello there.');
    expect(fake.streams[0]!.samples).toBe(8000);
  });

  it('transcribes a whole utterance at once; older models get the phrases as keywords', async () => {
    fake.script = ['Table for two.'];
    const text = await stt().transcribe({ ...request, model: 'nova-2', audio: second });
    expect(text).toBe('Table for two.');
    expect(fake.streams[0]!.params.getAll('keywords')).toEqual(['table', 'for', 'two']);
    expect(fake.streams[0]!.params.has('keyterm')).toBe(false);
    await expect(stt().transcribe({ ...request, audio: new Int16Array(0) })).resolves.toBe('');
    expect(fake.streams).toHaveLength(1);
  });

  it('writes what Deepgram writes: no punctuation when the operator turns it off in PARLEY_DEEPGRAM_URL', async () => {
    fake.script = ['Table for Two, please.'];
    const plain = stt({ url: `${fake.url}/?punctuate=false&smart_format=false` });
    await expect(plain.transcribe({ ...request, audio: second })).resolves.toBe('table for two please');
  });

  it('a cancelled stream closes its socket cleanly (1000), during the handshake too', async () => {
    const stream = stt().openStream(request);
    await speak(stream, second.subarray(0, 4096));
    stream.cancel();
    await eventually(
      () => fake.streams[0]?.clientClose,
      (c) => c !== null && c !== undefined,
    );
    expect(fake.streams[0]!.clientClose).toEqual({ code: 1000, reason: '' });
    expect(fake.streams[0]!.controls).toEqual([]);
    expect(fake.streams[0]!.transcript).toBeNull();
    stt().openStream(request).cancel();
    await new Promise((r) => setTimeout(r, 100));
    expect(fake.open).toEqual([]);
  });

  it('an aborted transcription rejects with the abort and closes its socket', async () => {
    const controller = new AbortController();
    const pending = stt({ stallMs: 5_000 }).transcribe({ ...request, audio: second, signal: controller.signal });
    fake.fail({ kind: 'stall' });
    await eventually(
      () => fake.streams[0]?.controls.length ?? 0,
      (n) => n === 2,
    );
    controller.abort(new Error('caller hung up'));
    await expect(pending).rejects.toThrow('caller hung up');
    await eventually(
      () => fake.open.length,
      (n) => n === 0,
    );
  });
});

describe('DeepgramStt fails as Deepgram fails, with a ProviderError', () => {
  it('a refused key: 401 with Deepgram’s reason and the fix', async () => {
    fake.apiKey = 'another-key';
    const stream = stt().openStream(request);
    await speak(stream, second.subarray(0, 2048));
    const err: unknown = await stream.finish().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as Error).message).toBe(
      'deepgram: the handshake was refused: HTTP 401: Invalid credentials.; check PARLEY_DEEPGRAM_API_KEY',
    );
    expect(fake.refusals[0]).toMatchObject({ status: 401, authorization: `Token ${key}` });
  });

  it('a refusal without dg-error: the JSON body says why; bad parameters are 400', async () => {
    fake.fail({ kind: 'refuse', status: 429, message: 'Too many concurrent requests.', header: false });
    await expect(stt().transcribe({ ...request, audio: second })).rejects.toThrow(
      'deepgram: the handshake was refused: HTTP 429: Too many concurrent requests. (FAULT)',
    );
    await expect(stt().transcribe({ ...request, model: 'nova-9', audio: second })).rejects.toThrow(
      /HTTP 400: No such model\/language\/tier combination found\.; check the preset's stt model and language$/,
    );
  });

  it('a close mid-utterance (1011) fails the stream with the code and reason', async () => {
    fake.fail({ kind: 'close', afterMs: 200, code: 1011, reason: 'NET-0000' });
    const stream = stt().openStream(request);
    await speak(stream, second);
    await expect(stream.finish()).rejects.toThrow('deepgram: the stream was closed mid-utterance (1011 NET-0000)');
  });

  it('a frame that is not Deepgram’s fails the stream and closes it', async () => {
    fake.fail({ kind: 'garbage', afterMs: 200 });
    const stream = stt().openStream(request);
    await speak(stream, second);
    await expect(stream.finish()).rejects.toThrow(/^deepgram: sent a frame that is not JSON \("<html>/);
    await eventually(
      () => fake.open.length,
      (n) => n === 0,
    );
  });

  it('no final transcript within the stall limit: a ProviderTimeout, the socket closed', async () => {
    fake.fail({ kind: 'stall' });
    const stream = stt({ stallMs: 300 }).openStream(request);
    await speak(stream, second.subarray(0, 4096));
    const err: unknown = await stream.finish().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderTimeout);
    expect((err as Error).message).toBe('deepgram: no final transcript within 300 ms of the end of the audio');
    await eventually(
      () => fake.open.length,
      (n) => n === 0,
    );
    expect(fake.streams[0]!.clientClose?.code).toBe(1000);
  });

  it('no audio for the idle timeout: Deepgram closes 1011 NET-0001', async () => {
    const idle = await FakeDeepgram.start({ apiKey: key, idleTimeoutMs: 150 });
    try {
      const stream = new DeepgramStt({ apiKey: key, url: idle.url, stallMs: 2_000 }).openStream(request);
      await eventually(
        () => idle.streams[0]?.serverClose,
        (c) => c !== null && c !== undefined,
      );
      // the fake has closed; whether this side has read the close before finish() asks is a race,
      // and the message says which ("mid-utterance", or "before its final transcript")
      await expect(stream.finish()).rejects.toThrow(
        /^deepgram: the stream was closed (mid-utterance|before its final transcript) \(1011 NET-0001\)$/,
      );
    } finally {
      await idle.close();
    }
  });

  it('an unreachable service, and no key or address at all', async () => {
    const closed = await FakeDeepgram.start();
    const url = closed.url;
    await closed.close();
    await expect(stt({ url }).transcribe({ ...request, audio: second })).rejects.toThrow(
      /^deepgram: connection failed: connect ECONNREFUSED/,
    );
    const none = new DeepgramStt({ apiKey: undefined, url: undefined });
    expect(() => none.openStream(request)).toThrow(ProviderNotConfigured);
    await expect(none.transcribe({ ...request, audio: second })).rejects.toThrow(/set PARLEY_DEEPGRAM_API_KEY/);
  });
});

describe('Deepgram in the registry: availability and /health/providers', () => {
  const registryWith = (env: Record<string, string>) => {
    const config = loadConfig({ MODELS_DIR: '/nonexistent', ...env });
    // a probe that waits on a loaded machine is not what this checks: 10 s, well past a busy suite
    return new ProviderRegistry(config, { checkCacheMs: 0, probeTimeoutMs: 10_000 });
  };

  it('is configured by its key or address, and its probe opens and closes a stream (no audio)', async () => {
    const bare = registryWith({});
    expect((await bare.availability('stt')).find((a) => a.provider === 'deepgram')).toMatchObject({
      kind: 'remote',
      configured: false,
      default_model: 'nova-3',
      any_model: true,
      reason: 'set PARLEY_DEEPGRAM_API_KEY (api.deepgram.com) or PARLEY_DEEPGRAM_URL (a self-hosted Deepgram)',
    });
    expect((await bare.check()).find((c) => c.provider === 'deepgram')).toMatchObject({ status: 'not_configured' });

    const live = registryWith({ PARLEY_DEEPGRAM_API_KEY: key, PARLEY_DEEPGRAM_URL: fake.url });
    expect((await live.availability('stt')).find((a) => a.provider === 'deepgram')?.configured).toBe(true);
    const ok = (await live.check()).find((c) => c.provider === 'deepgram');
    expect(ok).toMatchObject({ capability: 'stt', status: 'ok', detail: null });
    expect(ok!.latency_ms).toBeGreaterThan(0);
    expect(fake.streams.at(-1)).toMatchObject({ samples: 0, controls: ['Finalize', 'CloseStream'] });

    fake.apiKey = 'rotated';
    const bad = (await live.check()).find((c) => c.provider === 'deepgram');
    expect(bad).toMatchObject({ status: 'error', latency_ms: null });
    expect(bad!.detail).toBe(
      '/v1/listen: the handshake was refused: HTTP 401: Invalid credentials.; check PARLEY_DEEPGRAM_API_KEY',
    );
  });

  it('probeDeepgram resolves with the round trip', async () => {
    const { latencyMs } = await probeDeepgram({ apiKey: key, url: fake.url }, 2_000);
    expect(latencyMs).toBeGreaterThan(0);
  });
});
