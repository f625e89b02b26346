import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { endTrack, pitchOfTrack, SpeakerPitch } from '../../src/pipeline/turn/final-pitch.js';
import { fadedOut, finalFade, minFadeShare } from '../../src/pipeline/turn/final-fade.js';
import { pitchTrack } from '../../src/pipeline/turn/pitch-track.js';
import { SentenceEndLm } from '../../src/pipeline/turn/sentence-end-lm.js';
import { StatementEnd } from '../../src/pipeline/turn/statement-end.js';

const rate = 16_000;

/**
 * A voiced glide from `fromHz` to `toHz` over `ms` (a pulse train's first harmonics), its level
 * fading out over the last `fadeMs` (0: it stops at full strength), then 300 ms of silence.
 */
function glide(fromHz: number, toHz: number, ms = 1_200, fadeMs = 150): Int16Array {
  const n = (ms * rate) / 1000;
  const fade = (fadeMs * rate) / 1000;
  const out = new Int16Array(n + (300 * rate) / 1000);
  let phase = 0;
  for (let i = 0; i < n; i++) {
    phase += (2 * Math.PI * (fromHz + ((toHz - fromHz) * i) / n)) / rate;
    const level = i < n - fade ? 1 : 10 ** ((-30 * (i - (n - fade))) / fade / 20); // down 30 dB
    out[i] = Math.round(level * 4_000 * (Math.sin(phase) + 0.5 * Math.sin(2 * phase) + 0.3 * Math.sin(3 * phase)));
  }
  return out;
}

describe('the pitch track', () => {
  it('follows a voice from 200 Hz down to 120 Hz and marks silence unvoiced', () => {
    const track = pitchTrack(glide(200, 120), rate);
    const voiced = track.filter((f) => f.f0 > 0);
    expect(voiced.length).toBeGreaterThan(100);
    expect(voiced[0]!.f0).toBeGreaterThan(185);
    expect(voiced.at(-1)!.f0).toBeLessThan(135);
    expect(track.slice(-20).every((f) => f.f0 === 0)).toBe(true);
  });

  it('reads the same pitch at 8 kHz', () => {
    const wide = glide(180, 180);
    const narrow = new Int16Array(wide.length / 2).map((_, i) => wide[2 * i]!);
    const hz = pitchTrack(narrow, 8_000).filter((f) => f.f0 > 0);
    expect(Math.abs(hz[50]!.f0 - 180)).toBeLessThan(4);
  });
});

describe('the final pitch and the speaker floor', () => {
  const finalPitch = (audio: Int16Array, speaker?: SpeakerPitch) => pitchOfTrack(endTrack(audio, rate), speaker);

  it('tells a falling end from a rising one, against the floor learnt over the session', () => {
    const speaker = new SpeakerPitch();
    const falling = finalPitch(glide(200, 120), speaker)!;
    expect(falling.endHz).toBeLessThan(falling.medianHz);
    const rising = finalPitch(glide(140, 220), speaker)!;
    expect(rising.endHz).toBeGreaterThan(rising.medianHz);
    expect(speaker.floorHz!).toBeGreaterThan(115);
    expect(speaker.floorHz!).toBeLessThan(140);
    expect(finalPitch(new Int16Array(rate))).toBeNull();
  });
});

describe('the fade at the end', () => {
  it('tells a voice fading out from one that stops at full strength; a noisy line tells nothing', () => {
    const faded = finalFade(pitchTrack(glide(200, 120), rate))!;
    expect(faded.fallDb / faded.rangeDb).toBeGreaterThanOrEqual(minFadeShare);
    expect(fadedOut(faded)).toBe(true);
    const cut = finalFade(pitchTrack(glide(200, 120, 1_200, 0), rate))!;
    expect(cut.fallDb / cut.rangeDb).toBeLessThan(minFadeShare);
    expect(fadedOut(cut)).toBe(false);
    // loud noise throughout: less than 12 dB between the speech and the floor
    const noisy = glide(200, 120, 1_200, 0).map((s, i) => s + (((i * 7919) % 2001) - 1000) * 6);
    expect(finalFade(pitchTrack(noisy, rate))).toBeNull();
    expect(fadedOut(null)).toBe(true);
  });
});

describe('the statement-end rule', () => {
  const lm = SentenceEndLm.open(
    '/usr/share/pocketsphinx/model/en-us/en-us.lm.bin',
    'libsphinxbase.so.3',
    pino({ level: 'silent' }),
  );

  it("reads P(end of sentence) from the recogniser's language model", () => {
    expect(lm).not.toBeNull();
    expect(lm!.endLog10(['thank', 'you'])).toBeGreaterThan(-1);
    expect(lm!.endLog10(['please', 'enter', 'your'])).toBeLessThan(-2);
    expect(lm!.endLog10([])).toBe(-Infinity);
  });

  it('needs both a likely sentence end and a falling voice; off when the threshold is null', () => {
    const rule = new StatementEnd(lm!, { lmThreshold: -1.5, pitchCheck: true });
    expect(rule.judge('my card was declined', glide(200, 120), rate)).toMatchObject({ complete: true });
    expect(rule.judge('my card was declined', glide(140, 220), rate)).toMatchObject({ complete: false });
    expect(rule.judge('please enter your', glide(200, 120), rate)).toMatchObject({ complete: false });
    // words and pitch say finished, but the voice stopped at full strength: cut off mid-sentence
    expect(rule.judge('my card was declined', glide(200, 120, 1_200, 0), rate)).toMatchObject({
      complete: false,
      fadedOut: false,
    });
    const wordsOnly = new StatementEnd(lm!, { lmThreshold: -1.5, pitchCheck: false });
    expect(wordsOnly.judge('my card was declined', glide(140, 220), rate)).toMatchObject({ complete: true });
    expect(
      new StatementEnd(lm!, { lmThreshold: null, pitchCheck: true }).judge('thank you', glide(200, 120), rate),
    ).toBeNull();
  });

  it('is absent, and says so, without the model file', () => {
    expect(SentenceEndLm.open('/nowhere/en-us.lm.bin', 'libsphinxbase.so.3', pino({ level: 'silent' }))).toBeNull();
  });
});
