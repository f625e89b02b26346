import { describe, expect, it } from 'vitest';
import { UtteranceSoFar } from '../../src/sessions/utterance-so-far.js';

const end = { type: 'speech_end', audio: new Int16Array(0), startMs: 0, durationMs: 0, speechEndedAt: 0, decidedAt: 0 };

describe('the audio of the utterance being spoken (an STT that cannot stream)', () => {
  it('keeps the VAD audio of the possible utterance in order, copied, and starts afresh at its end or dismissal', () => {
    const soFar = new UtteranceSoFar();
    const window = new Int16Array(512);
    for (let i = 0; i < 40; i++) {
      window.fill(i); // the VAD reuses its view: what was kept must not change
      soFar.audio(window);
    }
    const kept = soFar.samples();
    expect(kept.length).toBe(40 * 512);
    expect([kept[0], kept[512], kept[39 * 512 + 511]]).toEqual([0, 1, 39]);
    soFar.heard({ type: 'speech_dismissed' });
    expect(soFar.samples().length).toBe(0);
    soFar.audio(new Int16Array(512).fill(7));
    soFar.heard({ type: 'speech_start' });
    expect(soFar.samples().length).toBe(512);
    soFar.heard(end as Parameters<UtteranceSoFar['heard']>[0]);
    expect(soFar.samples().length).toBe(0);
  });

  it('keeps at most 10 s', () => {
    const soFar = new UtteranceSoFar();
    for (let i = 0; i < 12; i++) soFar.audio(new Int16Array(16_000).fill(i));
    const kept = soFar.samples();
    expect(kept.length).toBe(160_000);
    expect(kept.at(-1)).toBe(9);
  });
});
