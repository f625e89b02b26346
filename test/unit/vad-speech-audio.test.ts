/**
 * The VAD's speech audio tap (VadSink.audio), the input of a streaming recogniser, and the session's
 * segment transcripts built on it: the real Silero model on real espeak-ng speech
 * (test/fixtures/audio/hello.wav), a stand-in streaming STT that records what it was fed.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VadEvent } from '../../src/pipeline/vad/events.js';
import { SileroVad } from '../../src/pipeline/vad/silero-vad.js';
import { readWav } from '../../src/audio/wav.js';
import type { StreamingSttProvider, SttStream } from '../../src/providers/stt.js';
import { SegmentTranscripts, streamingTranscripts } from '../../src/sessions/segment-transcripts.js';

const rate = 16_000;
let vad: SileroVad;
let hello: Int16Array;
beforeAll(async () => {
  vad = await SileroVad.load();
  hello = (await readWav(new URL('../fixtures/audio/hello.wav', import.meta.url).pathname)).samples;
}, 60_000);
afterAll(() => vad.close());

interface Tapped {
  /** Audio handed to the tap, copied, with its stream time. */
  chunks: { atMs: number; samples: Int16Array }[];
  events: { event: VadEvent; tappedSoFar: number }[];
}

async function tap(samples: Int16Array, prefixPaddingMs = 300): Promise<Tapped> {
  const out: Tapped = { chunks: [], events: [] };
  const stream = vad.stream(
    { prefixPaddingMs, maxPendingMs: 30_000, silenceFloorDbfs: 'off' },
    {
      event: (event) => out.events.push({ event, tappedSoFar: out.chunks.length }),
      audio: (view, atMs) => out.chunks.push({ atMs, samples: view.slice() }),
      error: (err) => {
        throw err;
      },
    },
  );
  for (let at = 0; at < samples.length; at += 320)
    stream.push({ samples: samples.subarray(at, at + 320), sampleRate: rate });
  await stream.whenIdle();
  stream.close();
  return out;
}

describe('the VAD speech audio tap', () => {
  it('hands over the utterance from the prefix padding to the end decision, contiguous, before the end event', async () => {
    const { chunks, events } = await tap(hello);
    const end = events.find((e) => e.event.type === 'speech_end')!;
    const speechEnd = end.event as Extract<VadEvent, { type: 'speech_end' }>;
    expect(chunks.length).toBeGreaterThan(10);
    // every chunk is handed over before the end event, and none after it
    expect(end.tappedSoFar).toBe(chunks.length);
    // the first chunk starts prefix_padding_ms before the onset
    expect(chunks[0]!.atMs).toBeCloseTo(Math.max(0, speechEnd.startAtMs - 300), 0);
    for (let i = 1; i < chunks.length; i++) {
      const previous = chunks[i - 1]!;
      expect(chunks[i]!.atMs).toBeCloseTo(previous.atMs + (previous.samples.length / rate) * 1000, 3);
    }
    // it covers the audio speech_end hands over (that stops prefix_padding_ms after the speech)
    const tapped = chunks.reduce((n, c) => n + c.samples.length, 0);
    expect(tapped).toBeGreaterThanOrEqual(speechEnd.audio.length);
    const offset = Math.round(chunks[0]!.atMs * 16);
    const first = chunks[0]!.samples;
    expect([...first.subarray(0, 64)]).toEqual([...hello.subarray(offset, offset + 64)]);
  });

  it('hands over nothing for silence', async () => {
    const { chunks } = await tap(new Int16Array(rate * 2));
    expect(chunks).toEqual([]);
  });
});

/** A streaming STT stand-in: each stream's transcript says how many samples it was fed. */
function countingStt(free: number, phraseGrammar = false): StreamingSttProvider & { cancelled: number } {
  const provider = {
    label: 'counting',
    phraseGrammar,
    cancelled: 0,
    transcribe: () => Promise.resolve('whole'),
    openStream(): SttStream | null {
      if (free === 0) return null;
      free--;
      let fed = 0;
      return {
        get partial() {
          return fed === 0 ? '' : `heard ${fed}`;
        },
        healthy: true,
        write: (samples) => void (fed += samples.length),
        finish: () => {
          free++;
          return Promise.resolve(`fed ${fed}`);
        },
        cancel: () => {
          free++;
          provider.cancelled++;
        },
      };
    },
  };
  return provider;
}

describe('segment transcripts', () => {
  const request = { sampleRate: rate, model: 'm', language: null };
  const logger = pino({ level: 'silent' });
  const end = (startMs: number, samples: number) =>
    ({
      type: 'speech_end',
      audio: new Int16Array(samples),
      startMs,
      durationMs: samples / 16,
      speechEndedAt: 0,
      decidedAt: 0,
    }) as const;

  it('joins the streamed transcripts of the segments an utterance is made of', async () => {
    const t = new SegmentTranscripts(countingStt(4), request, logger);
    t.audio(new Int16Array(512));
    t.heard(end(1000, 8000));
    t.audio(new Int16Array(1024));
    t.heard(end(1600, 8000));
    expect(await t.transcript(new Int16Array(8000), 1000)).toBe('fed 512');
    expect(await t.transcript(new Int16Array(17_600), 1000)).toBe('fed 512 fed 1024');
    expect(t.transcript(new Int16Array(8000), 900)).toBeNull(); // not a segment start: transcribe whole
  });

  it("reads the recogniser's hypothesis of the utterance being spoken; none between utterances or unstreamed", () => {
    const t = new SegmentTranscripts(countingStt(0), request, logger);
    t.audio(new Int16Array(512));
    expect(t.partial).toBe(''); // no decoder was free
    t.heard(end(1000, 512));
    const streamed = new SegmentTranscripts(countingStt(1), request, logger);
    expect(streamed.partial).toBe('');
    streamed.audio(new Int16Array(512));
    streamed.audio(new Int16Array(512));
    expect(streamed.partial).toBe('heard 1024');
    streamed.heard(end(1000, 1024));
    expect(streamed.partial).toBe('');
  });

  it('a dismissed onset drops its stream; a segment with no free decoder is transcribed whole', async () => {
    const stt = countingStt(1);
    const t = new SegmentTranscripts(stt, request, logger);
    t.audio(new Int16Array(512));
    t.heard({ type: 'speech_dismissed' });
    expect(stt.cancelled).toBe(1);
    const busy = stt.openStream(request)!; // the only decoder taken elsewhere
    t.audio(new Int16Array(512));
    t.heard(end(2000, 4000));
    expect(t.transcript(new Int16Array(4000), 2000)).toBeNull();
    busy.cancel();
  });

  it('a grammar (expected phrases only) that heard an utterance in several segments has it decoded whole', async () => {
    const phrases = ['i would like to book a table please'];
    const only = { ...request, phrases, phrasesOnly: true };
    const grammar = new SegmentTranscripts(countingStt(4, true), only, logger);
    const words = new SegmentTranscripts(countingStt(4, false), only, logger);
    const boosted = new SegmentTranscripts(countingStt(4, true), { ...request, phrases }, logger);
    for (const t of [grammar, words, boosted]) {
      t.audio(new Int16Array(512));
      t.heard(end(1000, 8000));
      t.audio(new Int16Array(1024));
      t.heard(end(1600, 8000));
    }
    // "i would like to book a table" and "please" match no phrase apart: the joined audio goes whole
    expect(grammar.transcript(new Int16Array(17_600), 1000)).toBeNull();
    expect(await grammar.transcript(new Int16Array(8000), 1000)).toBe('fed 512');
    // a recogniser without grammars, or phrases that only boost, join their segments' words as before
    expect(await words.transcript(new Int16Array(17_600), 1000)).toBe('fed 512 fed 1024');
    expect(await boosted.transcript(new Int16Array(17_600), 1000)).toBe('fed 512 fed 1024');
  });
});

describe("a session's streaming transcription", () => {
  it('asks its recogniser to load ahead, for the channel the session hears', async () => {
    const warmed: unknown[] = [];
    const stt = { ...countingStt(1), warm: (r: unknown) => Promise.resolve(void warmed.push(r)) };
    const speech = { stt: () => stt, tts: () => ({}) as never };
    const settings = { provider: 'counting', model: 'm', language: null };
    const where = { logger: pino({ level: 'silent' }), sessionId: 'ses_1' };
    const heard = { phrases: ['yes'], phrasesOnly: false, capturedRate: 8_000 };
    const t = streamingTranscripts(speech, settings, heard, where);
    expect(t).toBeInstanceOf(SegmentTranscripts);
    expect(warmed).toEqual([{ sampleRate: rate, model: 'm', language: null, ...heard }]);
  });
});
