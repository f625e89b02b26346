/**
 * What the phone line's audio conversions cost per audio second, on this thread (CPU time via
 * process.cpuUsage): the caller's way in (μ-law decode, 8 → 16 kHz for the VAD and STT) and the
 * agent's way out (the TTS's 16 or 24 kHz → 8 kHz, μ-law encode), in 20 ms frames as the transport
 * and the session graph run them. Baseline in the same run: copying the same frames.
 */
import { mulawDecode, mulawEncode } from '../../src/audio/mulaw.js';
import { Resampler } from '../../src/audio/resampler.js';

export interface CodecCost {
  step: string;
  /** CPU ms per second of audio, the best of 3 passes. */
  cpu_ms_per_audio_s: number;
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Runs `frame` over `seconds` of 20 ms frames, 3 passes; the cheapest pass's CPU per audio second. */
function measure(seconds: number, frame: (i: number) => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let pass = 0; pass < 3; pass++) {
    const t0 = cpuMs();
    for (let i = 0; i < seconds * 50; i++) frame(i);
    best = Math.min(best, (cpuMs() - t0) / seconds);
  }
  return best;
}

/** A speech-like test signal (two tones and noise) at `rate`, `seconds` long. */
function signal(rate: number, seconds: number): Int16Array {
  const out = new Int16Array(rate * seconds);
  for (let i = 0; i < out.length; i++)
    out[i] = Math.round(
      6000 * Math.sin((2 * Math.PI * 220 * i) / rate) +
        3000 * Math.sin((2 * Math.PI * 1250 * i) / rate) +
        500 * (Math.random() - 0.5),
    );
  return out;
}

export function measureCodecCost(seconds: number): CodecCost[] {
  const pcm8 = signal(8000, seconds);
  const bytes = mulawEncode(pcm8);
  const frame8 = (i: number) => bytes.subarray((i * 160) % bytes.length, ((i * 160) % bytes.length) + 160);
  const sink: number[] = [];
  const rows: CodecCost[] = [];
  rows.push({
    step: 'baseline: copy a 20 ms frame (8 kHz)',
    cpu_ms_per_audio_s: measure(seconds, (i) => sink.push(frame8(i).slice().length)),
  });
  rows.push({
    step: 'in: μ-law decode',
    cpu_ms_per_audio_s: measure(seconds, (i) => sink.push(mulawDecode(frame8(i)).length)),
  });
  const up = new Resampler(8000, 16_000);
  rows.push({
    step: 'in: μ-law decode + 8 → 16 kHz',
    cpu_ms_per_audio_s: measure(seconds, (i) => sink.push(up.push(mulawDecode(frame8(i))).length)),
  });
  for (const rate of [16_000, 24_000]) {
    const pcm = signal(rate, seconds);
    const n = rate / 50;
    const down = new Resampler(rate, 8000);
    rows.push({
      step: `out: ${rate / 1000} → 8 kHz + μ-law encode`,
      cpu_ms_per_audio_s: measure(seconds, (i) => {
        const at = (i * n) % pcm.length;
        sink.push(mulawEncode(down.push(pcm.subarray(at, at + n))).length);
      }),
    });
  }
  if (sink.length === 0) throw new Error('unreachable: keeps the work observable');
  return rows;
}
