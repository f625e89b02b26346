/**
 * Issue 22 item 3: Smart Turn needs 16 kHz, phone calls bring 8 kHz μ-law. Its decisions on the
 * phone's version of an utterance (16 kHz → 8 kHz → μ-law → decoded → upsampled to 16 kHz as the
 * session graph does, src/audio/resample.ts) must match its decisions on the 16 kHz original, over
 * flite sentences said whole and cut off mid-sentence.
 *
 * The model here is the random-weight stand-in with Smart Turn v3's architecture and input
 * (test/fixtures/models/smart-turn-random.onnx; the real file is not in this checkout): its
 * probabilities mean nothing, so the check is that the phone path leaves what the model reads
 * (the log-mel features) and what it answers close, not that it tells finished from unfinished.
 */
import { lastValueFrom, from, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulawDecode, mulawEncode } from '../../src/audio/mulaw.js';
import { resampleTo } from '../../src/audio/resample.js';
import { Resampler } from '../../src/audio/resampler.js';
import { SmartTurnFeatures } from '../../src/pipeline/turn/smart-turn-features.js';
import { SmartTurnModel } from '../../src/pipeline/turn/smart-turn.js';
import { fliteSay } from '../support/flite-speech.js';

const fixtureModel = new URL('../fixtures/models/smart-turn-random.onnx', import.meta.url).pathname;

const sentences = [
  'What time do you open tomorrow?',
  'I would like to move my appointment to Friday afternoon.',
  'Can you tell me how much the delivery costs?',
  'Thanks, that is all I needed today.',
];

/** The phone's version of 16 kHz speech, back at 16 kHz the way a call's audio reaches Smart Turn. */
async function overThePhone(samples: Int16Array): Promise<Int16Array> {
  const down = new Resampler(16_000, 8000);
  const mulaw = mulawEncode(Int16Array.from([...down.push(samples), ...down.flush()]));
  const frames = [];
  for (let i = 0; i < mulaw.length; i += 160)
    frames.push({ samples: mulawDecode(mulaw.subarray(i, i + 160)), sampleRate: 8000 });
  const out = await lastValueFrom(from(frames).pipe(resampleTo(16_000), toArray()));
  return Int16Array.from(out.flatMap((f) => [...f.samples]));
}

/** Mean absolute difference of two log-mel feature sets (80 × 800). */
function featureDistance(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

describe('Smart Turn on 8 kHz phone audio', { timeout: 120_000 }, () => {
  let model: SmartTurnModel;
  const corpus: { name: string; wide: Int16Array; phone: Int16Array }[] = [];

  beforeAll(async () => {
    model = await SmartTurnModel.open(fixtureModel);
    for (const text of sentences) {
      const whole = fliteSay(text);
      const cut = whole.subarray(0, Math.round(whole.length * 0.55));
      for (const [name, wide] of [
        [`${text} (whole)`, whole],
        [`${text} (cut off)`, cut],
      ] as const)
        corpus.push({ name, wide, phone: await overThePhone(wide) });
    }
  });

  afterAll(async () => {
    await model?.close();
  });

  it('reads nearly the same features from the phone version as from the 16 kHz original', () => {
    const features = new SmartTurnFeatures();
    const silence = features.compute(new Int16Array(16_000));
    for (const { name, wide, phone } of corpus) {
      const a = features.compute(wide).slice();
      const b = features.compute(phone);
      const apart = featureDistance(a, b);
      // the phone band (under 4 kHz) loses the top mels; what is left is far closer than silence is
      expect(apart, name).toBeLessThan(0.1 * featureDistance(a, silence));
    }
  });

  it('decides the same on the phone version as on the original', async () => {
    const wide: number[] = [];
    const phone: number[] = [];
    for (const item of corpus) {
      wide.push(await model.endOfTurn(item.wide));
      phone.push(await model.endOfTurn(item.phone));
    }
    // Smart Turn's decision: complete above 0.5 (its reference inference). Random weights answer
    // within a few thousandths of 0.5, so the decisions alone prove little: the phone path must also
    // move each answer by well under the spread between utterances (at the corpus's median as the
    // threshold, one of eight flips: a known limit of checking with this stand-in).
    const threshold = 0.5;
    const sorted = [...wide].sort((x, y) => x - y);
    const spread = sorted.at(-1)! - sorted[0]!;
    corpus.forEach(({ name }, i) => {
      expect(Math.abs(wide[i]! - phone[i]!), name).toBeLessThan(0.25 * spread);
      expect(phone[i]! >= threshold, name).toBe(wide[i]! >= threshold);
    });
  });
});
