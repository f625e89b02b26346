import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { gateSpeech, SpeechGate, type SpeechDecision } from '../../src/pipeline/vad/speech-gate.js';

/** Probabilities: a = speech, b = silence, m = between the two thresholds (0.5 / 0.35). */
const p = { a: 0.9, b: 0.1, m: 0.4 };
const windowMs = 32;
const opts = { threshold: 0.5, minSpeechMs: 64, minSilenceMs: 96, maxUtteranceMs: 30_000 };

function scheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

describe('SpeechGate (marbles)', () => {
  it('starts after minSpeechMs of speech and ends after minSilenceMs of silence', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const probabilities = cold('baaabbbbb|', p);
      const expected: Record<string, SpeechDecision> = {
        o: { type: 'onset', onsetMs: 32, atMs: 64 },
        s: { type: 'start', onsetMs: 32, atMs: 96 },
        e: { type: 'end', onsetMs: 32, speechEndMs: 128, atMs: 224, reason: 'silence' },
      };
      expectObservable(probabilities.pipe(gateSpeech(opts, windowMs))).toBe('-os---e--|', expected);
    });
  });

  it('announces each blip at once and dismisses it when it is shorter than minSpeechMs', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const at = (ms: number): { o: SpeechDecision; d: SpeechDecision } => ({
        o: { type: 'onset', onsetMs: ms, atMs: ms + windowMs },
        d: { type: 'dismissed', onsetMs: ms, atMs: ms + 2 * windowMs },
      });
      const expected: Record<string, SpeechDecision> = {
        a: at(0).o,
        b: at(0).d,
        c: at(64).o,
        d: at(64).d,
        e: at(128).o,
        f: at(128).d,
        g: at(224).o,
        h: at(224).d,
      };
      expectObservable(cold('abababmab|', p).pipe(gateSpeech(opts, windowMs))).toBe('abcdef-gh|', expected);
    });
  });

  it('holds speech through a pause shorter than minSilenceMs and counts in-between windows as silence', () => {
    scheduler().run(({ cold, expectObservable }) => {
      // pause "bb" (64 ms) is bridged; then "bmb" = 96 ms of not-speech ends it
      const probabilities = cold('aaabbaabmbb|', p);
      const expected: Record<string, SpeechDecision> = {
        o: { type: 'onset', onsetMs: 0, atMs: 32 },
        s: { type: 'start', onsetMs: 0, atMs: 64 },
        e: { type: 'end', onsetMs: 0, speechEndMs: 224, atMs: 320, reason: 'silence' },
      };
      expectObservable(probabilities.pipe(gateSpeech(opts, windowMs))).toBe('os-------e-|', expected);
    });
  });

  it('cuts an utterance at maxUtteranceMs and starts the next one if speech goes on', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const long = { threshold: 0.5, minSpeechMs: 250, minSilenceMs: 500, maxUtteranceMs: 1000 };
      const expected: Record<string, SpeechDecision> = {
        s: { type: 'start', onsetMs: 0, atMs: 250 },
        e: { type: 'end', onsetMs: 0, speechEndMs: 1000, atMs: 1000, reason: 'max_length' },
        t: { type: 'start', onsetMs: 1000, atMs: 1250 },
      };
      expectObservable(cold('aaaaaaa|', p).pipe(gateSpeech(long, 250))).toBe('s--et--|', expected);
    });
  });

  it('gives each subscription its own state', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const gated = cold('aaab|', p).pipe(gateSpeech(opts, windowMs));
      const start = { o: { type: 'onset', onsetMs: 0, atMs: 32 }, s: { type: 'start', onsetMs: 0, atMs: 64 } };
      expectObservable(gated).toBe('os--|', start);
      expectObservable(gated).toBe('os--|', start);
    });
  });
});

describe('SpeechGate.idle (what the silence floor asks before skipping a window)', () => {
  it('holds only while not speaking and no run of speech windows is under way', () => {
    const gate = new SpeechGate(opts, windowMs);
    const probabilities = [0.1, 0.9, 0.1, 0.9, 0.9, 0.1, 0.1, 0.1, 0.1];
    const idle = probabilities.map((probability, i) => {
      gate.push(probability, (i + 1) * windowMs);
      return gate.idle;
    });
    // a lone speech window is a run under way; two start speech (64 ms), three silent ones end it (96 ms)
    expect(idle).toEqual([true, false, true, false, false, false, false, true, true]);
  });
});

describe('SpeechGate options', () => {
  it('rejects out-of-range options by name', () => {
    expect(() => new SpeechGate({ threshold: 1.5 }, windowMs)).toThrow(/threshold/);
    expect(() => new SpeechGate({ minSilenceMs: -1 }, windowMs)).toThrow(/minSilenceMs/);
    expect(() => new SpeechGate({ maxUtteranceMs: 10 }, windowMs)).toThrow(/maxUtteranceMs/);
  });
});
