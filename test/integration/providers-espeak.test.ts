import { describe, expect, it } from 'vitest';
import { EspeakTts } from '../../src/providers/espeak/espeak-tts.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import type { TtsChunk, TtsRequest } from '../../src/providers/tts.js';

const tts = new EspeakTts();
const request = (text: string, extra: Partial<TtsRequest> = {}): TtsRequest => ({
  text,
  model: 'espeak-ng',
  voice: 'en-us',
  speed: 1,
  ...extra,
});

async function collect(chunks: AsyncIterable<TtsChunk>): Promise<TtsChunk[]> {
  const out: TtsChunk[] = [];
  for await (const chunk of chunks) out.push(chunk);
  return out;
}

const total = (chunks: TtsChunk[]) => chunks.reduce((n, c) => n + c.samples.length, 0);
const long = Array.from({ length: 12 }, (_, i) => `This is sentence number ${i + 1} of a long answer.`).join(' ');

describe('EspeakTts (the real espeak-ng)', () => {
  it('speaks text as 22050 Hz PCM16 chunks with audible content', async () => {
    const chunks = await collect(tts.synthesize(request('Hello, this is Parley speaking.')));
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.every((c) => c.sampleRate === 22_050 && c.samples.length > 0)).toBe(true);
    expect(total(chunks)).toBeGreaterThan(22_050 / 2); // over half a second of speech
    const peak = Math.max(...chunks.map((c) => c.samples.reduce((m, s) => Math.max(m, Math.abs(s)), 0)));
    expect(peak).toBeGreaterThan(1000);
  });

  it('speaks text that looks like options instead of obeying it', async () => {
    for (const text of ['--version', '-v de -s 900 hello', '--help']) {
      const chunks = await collect(tts.synthesize(request(text)));
      expect(total(chunks), text).toBeGreaterThan(22_050 / 4);
      expect(chunks.every((c) => c.sampleRate === 22_050)).toBe(true);
    }
  });

  it('stops early and quietly when aborted', async () => {
    const full = total(await collect(tts.synthesize(request(long))));
    const abort = new AbortController();
    const heard: TtsChunk[] = [];
    for await (const chunk of tts.synthesize(request(long, { signal: abort.signal }))) {
      heard.push(chunk);
      abort.abort();
    }
    expect(heard.length).toBe(1);
    expect(total(heard)).toBeLessThan(full);
  });

  it('yields nothing for an already aborted signal or empty text', async () => {
    expect(await collect(tts.synthesize(request('hello', { signal: AbortSignal.abort() })))).toEqual([]);
    expect(await collect(tts.synthesize(request('   ')))).toEqual([]);
  });

  it('speaks faster at a higher speed', async () => {
    const normal = total(await collect(tts.synthesize(request('The quick brown fox jumps over the lazy dog.'))));
    const fast = total(
      await collect(tts.synthesize(request('The quick brown fox jumps over the lazy dog.', { speed: 2 }))),
    );
    expect(fast).toBeLessThan(normal);
  });

  it('says clearly when the program is missing', async () => {
    const missing = new EspeakTts({ bin: '/nonexistent/espeak-ng' });
    const run = collect(missing.synthesize(request('hello')));
    await expect(run).rejects.toBeInstanceOf(ProviderError);
    await expect(run).rejects.toThrow(/espeak-ng not found: \/nonexistent\/espeak-ng .*PARLEY_ESPEAK_BIN/);
  });

  it('reports a non-zero exit with what espeak-ng wrote to stderr', async () => {
    await expect(collect(tts.synthesize(request('hello', { voice: 'nosuchvoice' })))).rejects.toThrow(
      /exited with code 1: .*voice does not exist/,
    );
  });
});
