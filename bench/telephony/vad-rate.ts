/**
 * Silero at 8 kHz natively against the pipeline's path (8 kHz upsampled to 16 kHz), on the same
 * phone audio: flite sentences round-tripped through μ-law 8 kHz, with silence around them. The
 * same ONNX file (@livekit/agents-plugin-silero's, which takes sr 8000: 256-sample windows with
 * 32 of context) run one stream at a time; CPU per audio second (upsampling included on the 16 kHz
 * side), and where each says speech starts (first window ≥ threshold) and ends (last one).
 */
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { mulawDecode, mulawEncode } from '../../src/audio/mulaw.js';
import { defaultVadOptions } from '../../src/pipeline/vad/options.js';
import { defaultSileroModelPath } from '../../src/pipeline/vad/silero-model.js';
import { concatSamples, resample } from '../../test/support/pcm.js';

export interface VadRateReport {
  utterances: number;
  audio_s: number;
  cpu_ms_per_audio_s: { native_8k: number; upsampled_16k: number };
  /** |onset(8k) − onset(16k)| and the same for the end, ms, per utterance. */
  onset_diff_ms: number[];
  end_diff_ms: number[];
  /** Utterances whose onset and end both agree within one 16 kHz window (32 ms). */
  agree_within_32ms: number;
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Speech probabilities per window of `audio` at `rate` (8000 or 16000), one stream. */
async function probabilities(session: InferenceSession, audio: Int16Array, rate: number): Promise<Float32Array> {
  const window = rate === 8000 ? 256 : 512;
  const context = rate === 8000 ? 32 : 64;
  const input = new Float32Array(context + window);
  const state = new Float32Array(256);
  const sr = new Tensor('int64', BigInt64Array.from([BigInt(rate)]), []);
  const out = new Float32Array(Math.floor(audio.length / window));
  for (let w = 0; w < out.length; w++) {
    input.copyWithin(0, window, window + context);
    for (let i = 0; i < window; i++) input[context + i] = audio[w * window + i]! / 32768;
    const r = await session.run({
      input: new Tensor('float32', input, [1, context + window]),
      state: new Tensor('float32', state, [2, 1, 128]),
      sr,
    });
    state.set(r['stateN']!.data as Float32Array);
    out[w] = (r['output']!.data as Float32Array)[0]!;
  }
  return out;
}

/** Onset and end (ms) of the speech the probabilities find; NaN when none. */
function span(p: Float32Array, windowMs: number): [number, number] {
  const t = defaultVadOptions.threshold;
  const first = p.findIndex((x) => x >= t);
  const last = p.findLastIndex((x) => x >= t);
  return first < 0 ? [Number.NaN, Number.NaN] : [first * windowMs, (last + 1) * windowMs];
}

export async function measureVadRate(sentences16k: Int16Array[]): Promise<VadRateReport> {
  const session = await InferenceSession.create(defaultSileroModelPath(), {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const quiet = new Int16Array(8000 * 0.5);
  const phone = sentences16k.map((s) =>
    mulawDecode(mulawEncode(concatSamples([quiet, resample(s, 16_000, 8000), quiet]))),
  );
  await probabilities(session, phone[0]!, 8000); // warm-up
  await probabilities(session, phone[0]!, 16_000);
  let native = 0;
  let upsampled = 0;
  const onset: number[] = [];
  const end: number[] = [];
  let agree = 0;
  for (const audio of phone) {
    let t0 = cpuMs();
    const p8 = await probabilities(session, audio, 8000);
    native += cpuMs() - t0;
    t0 = cpuMs();
    const p16 = await probabilities(session, resample(audio, 8000, 16_000), 16_000);
    upsampled += cpuMs() - t0;
    const [a, b] = [span(p8, 32), span(p16, 32)];
    onset.push(Math.abs(a[0] - b[0]));
    end.push(Math.abs(a[1] - b[1]));
    if (onset.at(-1)! <= 32 && end.at(-1)! <= 32) agree++;
  }
  await session.release();
  const seconds = phone.reduce((s, a) => s + a.length / 8000, 0);
  return {
    utterances: phone.length,
    audio_s: seconds,
    cpu_ms_per_audio_s: { native_8k: native / seconds, upsampled_16k: upsampled / seconds },
    onset_diff_ms: onset,
    end_diff_ms: end,
    agree_within_32ms: agree,
  };
}
