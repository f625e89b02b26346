import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenAiStt, promptChars } from '../../src/providers/openai/openai-stt.js';
import { OpenAiTts } from '../../src/providers/openai/openai-tts.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import type { TtsChunk, TtsRequest } from '../../src/providers/tts.js';
import {
  OpenAiAudioServer,
  tone,
  type ErrorReply,
  type SpeechReply,
  type TranscriptionCall,
} from '../support/openai-audio-server.js';

let server: OpenAiAudioServer;
let transcribe: (call: TranscriptionCall) => string | ErrorReply | Promise<string | ErrorReply>;
let speak: () => SpeechReply | ErrorReply;

beforeAll(async () => {
  server = await OpenAiAudioServer.start({ transcribe: (c) => transcribe(c), speak: () => speak() });
});
afterAll(async () => server.close());
beforeEach(() => {
  server.transcriptions.length = 0;
  server.speeches.length = 0;
  transcribe = (c) => (c.index === 0 ? ' hello there ' : `call ${c.index}`);
  speak = () => ({});
});

const endpoint = () => ({ apiKey: 'sk-test', baseUrl: server.baseUrl });
const utterance = Int16Array.from({ length: 8000 }, (_, i) => Math.round(5000 * Math.sin(i / 7)));

async function collect(chunks: AsyncIterable<TtsChunk>): Promise<TtsChunk[]> {
  const out: TtsChunk[] = [];
  for await (const chunk of chunks) out.push(chunk);
  return out;
}

describe('OpenAiStt against an OpenAI-compatible transcription server', () => {
  it('uploads the utterance as a WAV with the model and language, and returns the text', async () => {
    const stt = new OpenAiStt(endpoint());
    const text = await stt.transcribe({ audio: utterance, sampleRate: 16_000, model: 'whisper-1', language: 'de' });
    expect(text).toBe('hello there');
    const [call] = server.transcriptions;
    expect(call?.model).toBe('whisper-1');
    expect(call?.language).toBe('de');
    expect(call?.fileName).toBe('utterance.wav');
    expect(call?.authorization).toBe('Bearer sk-test');
    expect(call?.audio.sampleRate).toBe(16_000);
    expect(call?.audio.samples).toEqual(utterance);
  });

  it('leaves the language out when the preset has none', async () => {
    await new OpenAiStt(endpoint()).transcribe({
      audio: utterance,
      sampleRate: 16_000,
      model: 'gpt-4o-mini-transcribe',
      language: null,
    });
    expect(server.transcriptions[0]?.language).toBeNull();
    expect(server.transcriptions[0]?.model).toBe('gpt-4o-mini-transcribe');
    expect(server.transcriptions[0]?.fields).not.toHaveProperty('prompt');
  });

  it("sends the agent's expected phrases as the prompt, as many as fit in about 200 tokens", async () => {
    const stt = new OpenAiStt(endpoint());
    const base = { audio: utterance, sampleRate: 16_000, model: 'whisper-1', language: 'en' };
    await stt.transcribe({ ...base, phrases: ['super awesome company', 'waldo', 'pound key'] });
    expect(server.transcriptions[0]?.fields['prompt']).toBe('super awesome company, waldo, pound key');
    const many = Array.from({ length: 100 }, (_, i) => `phrase number ${i}`); // ~17 characters each
    await stt.transcribe({ ...base, phrases: many });
    const prompt = server.transcriptions[1]?.fields['prompt'] ?? '';
    expect(prompt.length).toBeLessThanOrEqual(promptChars);
    expect(prompt.startsWith('phrase number 0, phrase number 1, ')).toBe(true);
    expect(prompt.endsWith(many[prompt.split(', ').length - 1]!)).toBe(true);
    await stt.transcribe({ ...base, phrases: [] });
    expect(server.transcriptions[2]?.fields).not.toHaveProperty('prompt');
  });

  it('rejects with a clear error on a 5xx', async () => {
    transcribe = () => ({ status: 503, body: { error: { message: 'model is loading' } } });
    const run = new OpenAiStt(endpoint()).transcribe({
      audio: utterance,
      sampleRate: 16_000,
      model: 'whisper-1',
      language: null,
    });
    await expect(run).rejects.toBeInstanceOf(ProviderError);
    await expect(run).rejects.toThrow('openai: transcription failed: HTTP 503 (model is loading)');
    expect(server.transcriptions).toHaveLength(1); // no retries: a live turn reports failure at once
  });

  it('rejects a 200 that carries no transcript (JSON of another shape) as a failure, not silence', async () => {
    for (const body of [{}, 'not the API', { text: 42 }]) {
      transcribe = () => ({ status: 200, body });
      const run = new OpenAiStt(endpoint()).transcribe({
        audio: utterance,
        sampleRate: 16_000,
        model: 'whisper-1',
        language: null,
      });
      await expect(run).rejects.toBeInstanceOf(ProviderError);
      await expect(run).rejects.toThrow('openai: transcription failed: the answer has no "text"');
    }
  });

  it('rejects with the abort reason when the signal aborts mid-request', async () => {
    let release!: () => void;
    transcribe = () => new Promise((resolve) => (release = () => resolve('too late')));
    const abort = new AbortController();
    const run = new OpenAiStt(endpoint()).transcribe({
      audio: utterance,
      sampleRate: 16_000,
      model: 'whisper-1',
      language: null,
      signal: abort.signal,
    });
    while (server.transcriptions.length === 0) await new Promise((r) => setTimeout(r, 5));
    abort.abort();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    release();
  });

  it('rejects with a clear error when the server cannot be reached, or nothing is configured', async () => {
    const closed = new OpenAiStt({ apiKey: 'sk-test', baseUrl: 'http://127.0.0.1:9/v1' });
    await expect(
      closed.transcribe({ audio: utterance, sampleRate: 16_000, model: 'whisper-1', language: null }),
    ).rejects.toThrow(/transcription failed: could not reach the server/);
    const unset = new OpenAiStt({ apiKey: undefined, baseUrl: undefined });
    await expect(
      unset.transcribe({ audio: utterance, sampleRate: 16_000, model: 'whisper-1', language: null }),
    ).rejects.toThrow(/not configured: set OPENAI_API_KEY .* or OPENAI_BASE_URL/);
  });
});

describe('OpenAiTts against an OpenAI-compatible speech server', () => {
  const request = (extra: Partial<TtsRequest> = {}): TtsRequest => ({
    text: 'Hello from the speech server, streamed in pieces.',
    model: 'gpt-4o-mini-tts',
    voice: 'coral',
    speed: 1.25,
    ...extra,
  });

  it('asks for raw PCM and yields the body as it streams, across odd chunk boundaries', async () => {
    const expected = tone(300);
    speak = () => ({ samples: expected, chunkBytes: 1001 });
    const chunks = await collect(new OpenAiTts(endpoint()).synthesize(request()));
    expect(server.speeches[0]?.body).toEqual({
      model: 'gpt-4o-mini-tts',
      voice: 'coral',
      input: 'Hello from the speech server, streamed in pieces.',
      response_format: 'pcm',
      speed: 1.25,
    });
    expect(server.speeches[0]?.authorization).toBe('Bearer sk-test');
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.sampleRate === 24_000)).toBe(true);
    const all = new Int16Array(chunks.reduce((n, c) => n + c.samples.length, 0));
    let at = 0;
    for (const c of chunks) {
      all.set(c.samples, at);
      at += c.samples.length;
    }
    expect(all).toEqual(expected);
  });

  it('throws a clear error on a 5xx', async () => {
    speak = () => ({ status: 500, body: { error: { message: 'voice engine crashed' } } });
    const run = collect(new OpenAiTts(endpoint()).synthesize(request()));
    await expect(run).rejects.toBeInstanceOf(ProviderError);
    await expect(run).rejects.toThrow('openai: speech failed: HTTP 500 (voice engine crashed)');
  });

  it('ends quietly and drops the connection when aborted mid-stream', async () => {
    speak = () => ({ stallAfterChunks: 2 });
    const abort = new AbortController();
    const heard: TtsChunk[] = [];
    for await (const chunk of new OpenAiTts(endpoint()).synthesize(request({ signal: abort.signal }))) {
      heard.push(chunk);
      abort.abort();
    }
    expect(heard).toHaveLength(1);
    await server.waitForDisconnects(1);
  });

  it('sends nothing for an already aborted signal', async () => {
    expect(await collect(new OpenAiTts(endpoint()).synthesize(request({ signal: AbortSignal.abort() })))).toEqual([]);
    expect(server.speeches).toHaveLength(0);
  });
});
