import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { providers as catalog } from '../../src/schemas/provider-catalog.js';
import { FliteProbe } from '../../src/providers/flite/flite-probe.js';
import { FliteTts } from '../../src/providers/flite/flite-tts.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import type { TtsChunk, TtsRequest } from '../../src/providers/tts.js';

/** Each test's working folders land here, so the suite can see that none is left behind. */
const work = mkdtempSync(join(tmpdir(), 'parley-flite-test-'));
const bins = mkdtempSync(join(tmpdir(), 'parley-fake-flite-'));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(bins, { recursive: true, force: true });
});

const tts = new FliteTts({ tmpDir: work });
const request = (text: string, extra: Partial<TtsRequest> = {}): TtsRequest => ({
  text,
  model: 'flite',
  voice: 'slt',
  speed: 1,
  ...extra,
});

async function collect(chunks: AsyncIterable<TtsChunk>): Promise<TtsChunk[]> {
  const out: TtsChunk[] = [];
  for await (const chunk of chunks) out.push(chunk);
  return out;
}

const total = (chunks: TtsChunk[]) => chunks.reduce((n, c) => n + c.samples.length, 0);
const peak = (chunks: TtsChunk[]) =>
  Math.max(...chunks.map((c) => c.samples.reduce((m, s) => Math.max(m, Math.abs(s)), 0)));
const sentences = (n: number) =>
  Array.from({ length: n }, (_, i) => `This is sentence number ${i + 1} of a long answer.`).join(' ');

/** Live `flite` processes whose parent is this test process (Linux /proc). */
function fliteChildren(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (comm === 'flite' && ppid === process.pid) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

/** A stand-in program: flite itself never exits non-zero nor skips its WAV for Parley's arguments. */
function script(name: string, body: string): string {
  const path = join(bins, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe('FliteTts (the real flite)', () => {
  it('speaks text as 16 kHz PCM16 chunks with audible content', async () => {
    const chunks = await collect(tts.synthesize(request('Hello, this is Parley speaking.')));
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.every((c) => c.sampleRate === 16_000 && c.samples.length > 0)).toBe(true);
    expect(total(chunks)).toBeGreaterThan(16_000); // over a second of speech
    expect(peak(chunks)).toBeGreaterThan(1000);
  });

  it('speaks with every catalog voice, kal at 8 kHz and the others at 16 kHz', async () => {
    const voices = catalog.find((p) => p.capability === 'tts' && p.provider === 'flite')!.voices;
    expect(voices).toEqual(['slt', 'rms', 'awb', 'kal16', 'kal']);
    for (const voice of voices) {
      const chunks = await collect(tts.synthesize(request('Good morning.', { voice })));
      const rate = voice === 'kal' ? 8_000 : 16_000;
      expect(chunks.every((c) => c.sampleRate === rate)).toBe(true);
      expect(total(chunks), voice).toBeGreaterThan(rate / 2);
      expect(peak(chunks), voice).toBeGreaterThan(1000);
    }
  });

  it('speaks text that looks like options instead of obeying it', async () => {
    for (const text of ['--version', '-voice kal -o /tmp/x.wav hello', '-lv', '--help']) {
      const chunks = await collect(tts.synthesize(request(text)));
      expect(total(chunks), text).toBeGreaterThan(16_000 / 4);
      expect(chunks.every((c) => c.sampleRate === 16_000)).toBe(true); // slt, not kal
    }
  });

  it('streams a long text in several chunks', async () => {
    const chunks = await collect(tts.synthesize(request(sentences(12))));
    expect(chunks.length).toBeGreaterThan(5);
    expect(total(chunks)).toBeGreaterThan(20 * 16_000);
  });

  it('maps speed to the duration: 2 is about half as long, 0.5 about twice', async () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    const normal = total(await collect(tts.synthesize(request(text))));
    const fast = total(await collect(tts.synthesize(request(text, { speed: 2 }))));
    const slow = total(await collect(tts.synthesize(request(text, { speed: 0.5 }))));
    expect(fast / normal).toBeGreaterThan(0.4);
    expect(fast / normal).toBeLessThan(0.6);
    expect(slow / normal).toBeGreaterThan(1.8);
    expect(slow / normal).toBeLessThan(2.2);
  });

  it('kills flite when aborted mid-synthesis and ends quietly', async () => {
    const long = sentences(24);
    const start = performance.now();
    await collect(tts.synthesize(request(long)));
    const fullMs = performance.now() - start;

    const abort = new AbortController();
    let running: number[] = [];
    setTimeout(() => {
      running = fliteChildren();
      abort.abort();
    }, 50);
    const abortedAt = performance.now();
    expect(await collect(tts.synthesize(request(long, { signal: abort.signal })))).toEqual([]);
    expect(running).toHaveLength(1);
    expect(performance.now() - abortedAt).toBeLessThan(fullMs / 2);
    expect(fliteChildren()).toEqual([]);
  });

  it('stops early when aborted between chunks', async () => {
    const long = sentences(6);
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

  it('says clearly when the program is missing', async () => {
    const missing = new FliteTts({ bin: '/nonexistent/flite', tmpDir: work });
    const run = collect(missing.synthesize(request('hello')));
    await expect(run).rejects.toBeInstanceOf(ProviderError);
    await expect(run).rejects.toThrow(/flite not found: \/nonexistent\/flite .*Debian package flite.*PARLEY_FLITE_BIN/);
  });

  it('refuses a voice it does not offer, which flite would replace with kal', async () => {
    for (const voice of ['nosuchvoice', 'awb_time', '/tmp/voice.flitevox', 'constructor']) {
      await expect(collect(tts.synthesize(request('hello', { voice }))), voice).rejects.toThrow(
        `flite: unknown voice "${voice}": flite speaks slt, rms, awb, kal16, kal`,
      );
    }
  });

  it('reports a non-zero exit, or no WAV, with what the program wrote to stderr', async () => {
    const failing = new FliteTts({ bin: script('exits-3', 'echo "voice data damaged" >&2; exit 3'), tmpDir: work });
    await expect(collect(failing.synthesize(request('hello')))).rejects.toThrow(
      /flite \(.*\) exited with code 3: voice data damaged/,
    );
    const silent = new FliteTts({
      bin: script('writes-nothing', 'cat >/dev/null; echo "cst_wave_save: can\'t open file" >&2'),
      tmpDir: work,
    });
    await expect(collect(silent.synthesize(request('hello')))).rejects.toThrow(
      /flite \(.*\) wrote no WAV file: cst_wave_save: can't open file/,
    );
  });

  it('leaves no working folder behind', () => {
    expect(readdirSync(work)).toEqual([]);
  });
});

describe('FliteProbe', () => {
  it('finds the program and the voices Parley offers', async () => {
    const probe = new FliteProbe('flite', 3_000, 60_000);
    expect(await probe.probe()).toEqual({ ok: true, problem: null, voices: ['slt', 'rms', 'awb', 'kal16', 'kal'] });
    expect(await probe.synthesize('slt')).toMatchObject({ status: 'ok', latency_ms: expect.any(Number) });
    expect(await probe.synthesize('nosuchvoice')).toMatchObject({
      status: 'error',
      detail: expect.stringContaining('unknown voice'),
    });
  });

  it('says why a missing program is unusable and how to fix it', async () => {
    const probe = await new FliteProbe('/nonexistent/flite', 3_000, 60_000).probe();
    expect(probe.ok).toBe(false);
    expect(probe.problem).toBe(
      'PARLEY_FLITE_BIN (/nonexistent/flite) did not run: program not found; install the Debian package flite, or set PARLEY_FLITE_BIN',
    );
  });
});
