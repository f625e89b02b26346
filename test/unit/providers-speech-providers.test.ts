import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { DeepgramStt } from '../../src/providers/deepgram/deepgram-stt.js';
import { ElevenLabsTts } from '../../src/providers/elevenlabs/elevenlabs-tts.js';
import { EspeakTts } from '../../src/providers/espeak/espeak-tts.js';
import { FliteTts } from '../../src/providers/flite/flite-tts.js';
import { VitsTts } from '../../src/providers/local/vits-tts.js';
import { WhisperStt } from '../../src/providers/local/whisper-stt.js';
import { OpenAiStt } from '../../src/providers/openai/openai-stt.js';
import { OpenAiTts } from '../../src/providers/openai/openai-tts.js';
import { OpenAiRealtimeStt } from '../../src/providers/openai-realtime/realtime-stt.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { ProviderSet } from '../../src/providers/speech-providers.js';
import { isStreaming } from '../../src/providers/stt.js';
import { isStreamingTts } from '../../src/providers/tts.js';

const config = loadConfig({
  MODELS_DIR: '/srv/models',
  PARLEY_ESPEAK_BIN: '/nonexistent/espeak',
  PARLEY_FLITE_BIN: '/nonexistent/flite',
  OPENAI_API_KEY: 'sk-test',
});
const registry = new ProviderRegistry(config, { modelAliases: { 'Xenova/mms-tts-eng': 'voices/mms' } });

describe('ProviderSet', () => {
  it('picks the implementation a preset section names', () => {
    const set = new ProviderSet(config, registry);
    expect(set.stt({ provider: 'openai', model: 'whisper-1', language: null })).toBeInstanceOf(OpenAiStt);
    expect(set.stt({ provider: 'local-whisper', model: 'Xenova/whisper-tiny.en', language: null })).toBeInstanceOf(
      WhisperStt,
    );
    expect(set.tts({ provider: 'espeak', model: 'espeak-ng', voice: 'en-us', speed: 1 })).toBeInstanceOf(EspeakTts);
    expect(set.tts({ provider: 'flite', model: 'flite', voice: 'slt', speed: 1 })).toBeInstanceOf(FliteTts);
    expect(set.tts({ provider: 'openai', model: 'tts-1', voice: 'alloy', speed: 1 })).toBeInstanceOf(OpenAiTts);
    expect(set.tts({ provider: 'local-vits', model: 'Xenova/mms-tts-eng', voice: 'default', speed: 1 })).toBeInstanceOf(
      VitsTts,
    );
    const eleven = set.tts({
      provider: 'elevenlabs',
      model: 'eleven_flash_v2_5',
      voice: 'JBFqnCBsd6RMkjVDRZzb',
      speed: 1,
    });
    expect(eleven).toBeInstanceOf(ElevenLabsTts);
    // the one provider that takes the answer's text as it is produced
    expect(isStreamingTts(eleven)).toBe(true);
    expect(isStreamingTts(set.tts({ provider: 'openai', model: 'tts-1', voice: 'alloy', speed: 1 }))).toBe(false);
  });

  it('builds openai-realtime with the deployment limits: the stall for the handshake and the quiet after speech, the STT timeout whole', () => {
    const limited = loadConfig({
      OPENAI_API_KEY: 'sk-test',
      PARLEY_PROVIDER_STALL_MS: '4000',
      PARLEY_STT_TIMEOUT_MS: '9000',
    });
    const stt = new ProviderSet(limited, new ProviderRegistry(limited)).stt({
      provider: 'openai-realtime',
      model: 'gpt-4o-transcribe',
      language: null,
    });
    expect(stt).toBeInstanceOf(OpenAiRealtimeStt);
    expect((stt as OpenAiRealtimeStt).options).toEqual({
      connectTimeoutMs: 4000,
      stallMs: 4000,
      timeoutMs: 9000,
      maxLagMs: 3000,
    });
  });

  it('shares one instance per provider and model, whatever the voice, speed or language', () => {
    const set = new ProviderSet(config, registry);
    const a = set.tts({ provider: 'espeak', model: 'espeak-ng', voice: 'en-us', speed: 1 });
    expect(set.tts({ provider: 'espeak', model: 'espeak-ng', voice: 'de', speed: 2 })).toBe(a);
    const whisper = set.stt({ provider: 'local-whisper', model: 'Xenova/whisper-tiny.en', language: null });
    expect(set.stt({ provider: 'local-whisper', model: 'Xenova/whisper-tiny.en', language: 'en' })).toBe(whisper);
    expect(set.stt({ provider: 'local-whisper', model: 'Xenova/whisper-base.en', language: null })).not.toBe(whisper);
    expect(set.stt({ provider: 'openai', model: 'whisper-1', language: null })).not.toBe(whisper);
  });

  it('builds deepgram from PARLEY_DEEPGRAM_* with the stall limit, a streaming provider', () => {
    const withKey = loadConfig({ PARLEY_DEEPGRAM_API_KEY: 'dg-key', PARLEY_PROVIDER_STALL_MS: '4000' });
    const stt = new ProviderSet(withKey, new ProviderRegistry(withKey)).stt({
      provider: 'deepgram',
      model: 'nova-3',
      language: null,
    });
    expect(stt).toBeInstanceOf(DeepgramStt);
    expect((stt as DeepgramStt).options).toMatchObject({ apiKey: 'dg-key', url: undefined, stallMs: 4000 });
    expect(isStreaming(stt)).toBe(true);
  });

  it('looks local models up in the registry folders, aliases included', () => {
    const set = new ProviderSet(config, registry);
    const whisper = set.stt({ provider: 'local-whisper', model: 'Xenova/whisper-tiny.en', language: null });
    const vits = set.tts({ provider: 'local-vits', model: 'Xenova/mms-tts-eng', voice: 'default', speed: 1 });
    expect(whisper).toBeInstanceOf(WhisperStt);
    expect(vits).toBeInstanceOf(VitsTts);
    expect((whisper as WhisperStt).modelDir).toBe('/srv/models/Xenova/whisper-tiny.en');
    expect((vits as VitsTts).modelDir).toBe('/srv/models/voices/mms');
  });

  it('runs espeak-ng from PARLEY_ESPEAK_BIN', async () => {
    const tts = new ProviderSet(config, registry).tts({
      provider: 'espeak',
      model: 'espeak-ng',
      voice: 'en-us',
      speed: 1,
    });
    const run = (async () => {
      for await (const chunk of tts.synthesize({ text: 'hi', model: 'espeak-ng', voice: 'en-us', speed: 1 }))
        void chunk;
    })();
    await expect(run).rejects.toThrow(/\/nonexistent\/espeak is not installed/);
  });

  it('runs flite from PARLEY_FLITE_BIN', async () => {
    const tts = new ProviderSet(config, registry).tts({ provider: 'flite', model: 'flite', voice: 'slt', speed: 1 });
    const run = (async () => {
      for await (const chunk of tts.synthesize({ text: 'hi', model: 'flite', voice: 'slt', speed: 1 })) void chunk;
    })();
    await expect(run).rejects.toThrow(/\/nonexistent\/flite is not installed/);
  });
});
