import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { LocalModel } from '../../src/providers/local/local-model.js';
import { VitsTts } from '../../src/providers/local/vits-tts.js';
import { WhisperStt } from '../../src/providers/local/whisper-stt.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { ProviderSet } from '../../src/providers/speech-providers.js';
import type { TtsChunk } from '../../src/providers/tts.js';
import { testModelsDir } from '../support/test-models.js';

/** Random-weight models in real transformers.js layouts (scripts/make-test-models.ts). */
const modelsDir = await testModelsDir();
const whisperDir = join(modelsDir, 'tiny-random-whisper');
const vitsDir = join(modelsDir, 'tiny-random-vits-tts');
/** The random decoder never emits end-of-text: keep it short. */
const whisperOptions = { maxNewTokens: 6, threads: 1 };

const second = Int16Array.from({ length: 16_000 }, (_, i) => Math.round(4000 * Math.sin(i / 9)));

afterAll(async () => LocalModel.closeAll());

/** Loading starts a worker and ONNX sessions: slow on a busy 2-core machine. */
const loading = { timeout: 90_000 };

describe('WhisperStt (transformers.js in a worker thread)', loading, () => {
  it('transcribes 16 kHz audio to a string, loading the model once and reusing it', async () => {
    const stt = new WhisperStt(whisperDir, whisperOptions);
    const first = await stt.transcribe({
      audio: second,
      sampleRate: 16_000,
      model: 'tiny-random-whisper',
      language: null,
    });
    expect(typeof first).toBe('string');
    const model = await stt.model();
    const done = model.completed;
    await stt.transcribe({ audio: second, sampleRate: 16_000, model: 'tiny-random-whisper', language: 'en' });
    const again = await WhisperStt.load(whisperDir, whisperOptions);
    expect(await again.model()).toBe(model);
    expect(model.completed).toBe(done + 1);
  });

  it('drops a request aborted while queued behind another, and still answers the first', async () => {
    const stt = new WhisperStt(whisperDir, whisperOptions);
    const abort = new AbortController();
    const first = stt.transcribe({ audio: second, sampleRate: 16_000, model: 'm', language: null });
    const queued = stt.transcribe({
      audio: second,
      sampleRate: 16_000,
      model: 'm',
      language: null,
      signal: abort.signal,
    });
    abort.abort();
    await expect(queued).rejects.toMatchObject({ name: 'AbortError' });
    expect(typeof (await first)).toBe('string');
  });

  it('refuses audio at another rate, and answers empty audio with an empty transcript', async () => {
    const stt = new WhisperStt(whisperDir, whisperOptions);
    await expect(stt.transcribe({ audio: second, sampleRate: 48_000, model: 'm', language: null })).rejects.toThrow(
      'local-whisper: audio must be 16000 Hz mono, got 48000 Hz',
    );
    expect(await stt.transcribe({ audio: new Int16Array(0), sampleRate: 16_000, model: 'm', language: null })).toBe('');
  });

  it('says which folder is missing and how to fill it', async () => {
    const stt = new WhisperStt(join(modelsDir, 'no-such-model'));
    const run = stt.transcribe({ audio: second, sampleRate: 16_000, model: 'm', language: null });
    await expect(run).rejects.toBeInstanceOf(ProviderError);
    await expect(run).rejects.toThrow(/model not installed: .*no-such-model has no config.json \(run `npm run models`/);
  });
});

describe('VitsTts (transformers.js in a worker thread)', loading, () => {
  it('speaks text as one PCM16 chunk at the model rate', async () => {
    const tts = await VitsTts.load(vitsDir, { threads: 1 });
    const chunks: TtsChunk[] = [];
    for await (const chunk of tts.synthesize({ text: 'hello world', model: 'm', voice: 'default', speed: 1 }))
      chunks.push(chunk);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.sampleRate).toBe(16_000);
    expect(chunks[0]?.samples).toBeInstanceOf(Int16Array);
    expect(chunks[0]?.samples.length).toBeGreaterThan(0);
  });

  it('yields nothing when aborted before the model answers', async () => {
    const tts = new VitsTts(vitsDir, { threads: 1 });
    const abort = new AbortController();
    const chunks: TtsChunk[] = [];
    const run = (async () => {
      for await (const chunk of tts.synthesize({
        text: 'hello',
        model: 'm',
        voice: 'default',
        speed: 1,
        signal: abort.signal,
      }))
        chunks.push(chunk);
    })();
    abort.abort();
    await run;
    expect(chunks).toEqual([]);
  });
});

describe('ProviderSet with local models', loading, () => {
  it('finds a catalog model through the registry folder aliases', async () => {
    const config = loadConfig({ MODELS_DIR: modelsDir });
    const registry = new ProviderRegistry(config, {
      modelAliases: { 'Xenova/whisper-tiny.en': 'tiny-random-whisper' },
    });
    const set = new ProviderSet(config, registry, { whisper: whisperOptions });
    const stt = set.stt({ provider: 'local-whisper', model: 'Xenova/whisper-tiny.en', language: null });
    expect(
      typeof (await stt.transcribe({
        audio: second,
        sampleRate: 16_000,
        model: 'Xenova/whisper-tiny.en',
        language: null,
      })),
    ).toBe('string');
  });
});
