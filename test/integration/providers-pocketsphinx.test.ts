import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/providers/provider-error.js';
import { PocketsphinxStt } from '../../src/providers/pocketsphinx/pocketsphinx-stt.js';
import { pocketsphinxProblem } from '../../src/providers/pocketsphinx/sphinx-probe.js';
import type { SttStream } from '../../src/providers/stt.js';
import { eventually } from '../support/eventually.js';
import { fliteScript, fliteSay } from '../support/flite-speech.js';
import { overPhoneLine } from '../support/phone-line.js';
import { wordErrorRate } from '../support/wer.js';

const booking = 'i would like to book a table for four people on friday evening';
const request = { sampleRate: 16_000, model: 'en-us', language: null };

/** Feeds `audio` to a stream in 32 ms windows, as the VAD does, at `paceMs` per window. */
function writeAll(stream: SttStream, audio: Int16Array): void {
  for (let i = 0; i < audio.length; i += 512) stream.write(audio.subarray(i, i + 512));
}

async function streamed(stt: PocketsphinxStt, audio: Int16Array, paceMs = 0) {
  const stream = stt.openStream(request);
  if (stream === null) throw new Error('no decoder free');
  const partials: string[] = [];
  for (let i = 0; i < audio.length; i += 512) {
    stream.write(audio.subarray(i, i + 512));
    if (paceMs > 0) await new Promise((r) => setTimeout(r, paceMs));
    partials.push(stream.partial);
  }
  return { text: await stream.finish(), partials };
}

describe('pocketsphinx STT (Debian libpocketsphinx3, real speech from flite)', () => {
  let stt: PocketsphinxStt;
  let speech: Int16Array;

  beforeAll(async () => {
    // writes here run faster than real time: the lag bound has its own test
    stt = new PocketsphinxStt({ decoders: 2, maxLagMs: 60_000 });
    await stt.warm();
    speech = fliteSay(booking, 'slt');
  });
  afterAll(() => stt.close());

  it('is usable here: the libraries load and the model files are there', async () => {
    expect(await pocketsphinxProblem('/usr/share/pocketsphinx/model/en-us')).toBeNull();
    expect(await pocketsphinxProblem('/nowhere')).toMatch(
      /model file \/nowhere\/en-us.* is missing: install .*pocketsphinx-en-us/,
    );
  });

  it('transcribes a whole utterance', async () => {
    const heard = await stt.transcribe({ ...request, audio: speech });
    expect(wordErrorRate([{ said: booking, heard }])).toBeLessThanOrEqual(0.2);
  });

  it('decodes while the audio arrives: partial hypotheses grow, the final comes at finish', async () => {
    const { text, partials } = await streamed(stt, speech, 8);
    // how many partials come, and when, depends on the machine's load: what holds is that they
    // grow, and that most of the sentence is heard before it is finished
    const words = partials.map((p) => p.split(' ').filter(Boolean).length);
    expect(words[0]!).toBeLessThan(Math.max(...words));
    expect(Math.max(...words)).toBeGreaterThanOrEqual(4);
    expect(wordErrorRate([{ said: booking, heard: text }])).toBeLessThanOrEqual(0.2);
  });

  it('bounds its decoders: a stream past the bound gets none, a whole transcription waits for one', async () => {
    const a = stt.openStream(request)!;
    const b = stt.openStream(request)!;
    expect(stt.openStream(request)).toBeNull();
    expect(stt.busy).toBe(2);
    const waiting = stt.transcribe({ ...request, audio: speech });
    writeAll(a, speech);
    b.cancel();
    expect(wordErrorRate([{ said: booking, heard: await waiting }])).toBeLessThanOrEqual(0.2);
    expect(wordErrorRate([{ said: booking, heard: await a.finish() }])).toBeLessThanOrEqual(0.2);
    expect(stt.busy).toBe(0);
  });

  it('an aborted whole transcription leaves the queue and keeps the bound', async () => {
    const a = stt.openStream(request)!;
    const b = stt.openStream(request)!;
    const controller = new AbortController();
    const waiting = stt.transcribe({ ...request, audio: speech, signal: controller.signal });
    controller.abort();
    await expect(waiting).rejects.toThrow();
    a.cancel();
    b.cancel();
    await expect(stt.transcribe({ ...request, audio: fliteSay('yes') })).resolves.toBeTypeOf('string');
    // a cancel gives its decoder back when the worker thread answers, which on a loaded machine
    // can come after the transcription on the other thread: a leaked decoder never comes back
    await eventually(
      () => stt.busy,
      (busy) => busy === 0,
      { what: 'every decoder free' },
    );
  });

  it('expected phrases only: a grammar that hears only them', async () => {
    const phrases = ['yes please', 'no thanks', 'talk to a person'];
    const heard = await stt.transcribe({ ...request, audio: fliteSay('talk to a person'), phrases, phrasesOnly: true });
    expect(heard).toBe('talk to a person');
    const stream = stt.openStream({ ...request, phrases, phrasesOnly: true })!;
    writeAll(stream, fliteSay('no thanks'));
    expect(await stream.finish()).toBe('no thanks');
  });

  it('a grammar with a word outside the dictionary fails that utterance alone, with a clear error', async () => {
    const only = { phrases: ['zzyzxq blorf'], phrasesOnly: true };
    await expect(stt.transcribe({ ...request, audio: speech, ...only })).rejects.toThrow(
      /pocketsphinx: the expected phrases do not compile into a grammar/,
    );
    const bad = stt.openStream({ ...request, ...only })!;
    writeAll(bad, speech);
    const failure = await bad.finish().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ProviderError);
    expect(stt.busy).toBe(0);
    const { text } = await streamed(stt, speech);
    expect(wordErrorRate([{ said: booking, heard: text }])).toBeLessThanOrEqual(0.2);
  });

  it('a stream whose decoder falls behind gives up (healthy false) and frees its decoder', async () => {
    const slow = new PocketsphinxStt({ decoders: 1, maxLagMs: 200 });
    try {
      const stream = slow.openStream(request)!;
      writeAll(stream, speech); // 3.6 s at once: far past 200 ms queued
      expect(stream.healthy).toBe(false);
      await expect(stream.finish()).rejects.toThrow(/behind real time/);
      expect(slow.busy).toBe(0);
      expect(slow.openStream(request)).not.toBeNull();
    } finally {
      await slow.close();
    }
  });

  it('refuses other languages and other sample rates', async () => {
    expect(() => stt.openStream({ ...request, language: 'de' })).toThrow(/US English only/);
    await expect(stt.transcribe({ ...request, sampleRate: 8_000, audio: speech })).rejects.toThrow(/16000 Hz/);
  });

  it('silence transcribes to nothing', async () => {
    expect(await stt.transcribe({ ...request, audio: new Int16Array(16_000) })).toBe('');
  });
});

describe('pocketsphinx: a fresh decoder on a phone line', () => {
  // Started from the model's wide-band cepstral mean, a fresh decoder heard no phrase ('') in each
  // of these over a phone line under a grammar; phone calls' decoders start from a phone line's mean.
  const phrases = ['speak to a person', 'yes', 'support', 'i would like to book a table please', 'billing'];
  const said = ['speak to a person', 'yes', 'support', 'i would like to book a table, please'];
  const phone = { ...request, phrases, phrasesOnly: true, capturedRate: 8_000 };

  it('hears its first utterance under a grammar, streamed as a session does and whole', async () => {
    for (const text of said) {
      const audio = overPhoneLine(fliteScript('slt', 300, text, 300));
      const expected = text.replace(',', '');
      const streaming = new PocketsphinxStt({ decoders: 1, threads: 1 });
      const whole = new PocketsphinxStt({ decoders: 1, threads: 1 });
      try {
        const stream = streaming.openStream(phone)!;
        writeAll(stream, audio);
        expect(await stream.finish()).toBe(expected);
        expect(await whole.transcribe({ ...phone, audio })).toBe(expected);
      } finally {
        await Promise.all([streaming.close(), whole.close()]);
      }
    }
  });

  it('keeps phone and wide-band decoders apart: one decoder, alternating calls, each heard', async () => {
    const one = new PocketsphinxStt({ decoders: 1, threads: 1 });
    try {
      for (const text of ['support', 'yes']) {
        const spoken = fliteScript('slt', 300, text, 300);
        expect(await one.transcribe({ ...phone, audio: overPhoneLine(spoken) })).toBe(text);
        expect(await one.transcribe({ ...phone, capturedRate: 16_000, audio: spoken })).toBe(text);
      }
    } finally {
      await one.close();
    }
  });
});
