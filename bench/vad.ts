/**
 * VAD cost per stream (issue "Voice pipeline", benchmark 10c; issue "Capacity", benchmark 6): Parley's
 * Silero VAD (src/pipeline/vad: every stream's due windows batched on the VAD worker thread) against
 * @livekit/agents-plugin-silero's own VAD stream, on the same audio, in the same run, rounds
 * alternating so machine noise hits both alike.
 *
 * Parley is measured as it runs in a server: `streams` streams at once, each its own audio (the same
 * clips, each stream starting at another offset), so each batch holds one window of every stream;
 * and one stream alone (batches of one).
 *
 * Audio: the committed espeak-ng fixtures (hello, two-utterances, interrupt) end to end, repeated,
 * fed as 20 ms frames at 16 kHz as fast as each side takes them. Cost = process CPU time (user +
 * system, all threads: ONNX Runtime runs on libuv's pool) per second of audio. Both sides use the
 * same ONNX file with one intra-op thread. Also measured: the bare model in this thread (one `run`
 * per window, and `streams` windows per `run`: the floors) and resampling 48 kHz → 16 kHz (Parley's
 * resampler vs rtc-node's AudioResampler, which the plugin uses).
 *
 *   node --import tsx bench/vad.ts        # writes bench/results/vad.{json,md}
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { AudioFrame as RtcAudioFrame, AudioResampler, AudioResamplerQuality } from '@livekit/rtc-node';
import { from, lastValueFrom, toArray } from 'rxjs';
import { sliceFrames, type AudioFrame } from '../src/audio/audio-frame.js';
import { Resampler } from '../src/audio/resampler.js';
import { detectSpeech } from '../src/pipeline/vad/detect-speech.js';
import { newSileroState, vadInputSamples, vadStateSize, vadWindowSamples } from '../src/pipeline/vad/silero-format.js';
import { SileroModel } from '../src/pipeline/vad/silero-model.js';
import { SileroVad } from '../src/pipeline/vad/silero-vad.js';
import { readWav } from '../src/audio/wav.js';
import { isMain } from './lib/is-main.js';
import { fixturePath, loadVadBenchAudio, measurePass, vadBenchFixtures, type VadPass } from './lib/vad-audio.js';
import { machineInfo, markdownTable, round, publishResults } from './lib/report.js';

export interface VadBenchOptions {
  /** Times the fixture audio is repeated per measured pass. */
  repeats: number;
  /** Measured passes per side, alternating; the median is reported. */
  rounds: number;
  frameMs: number;
  /** Streams run at once on the batched side. */
  streams: number;
}

export const defaultVadBenchOptions: VadBenchOptions = { repeats: 2, rounds: 3, frameMs: 20, streams: 64 };

export interface VadBenchRow {
  side: string;
  /** CPU ms per second of audio per stream, median of rounds. */
  cpu_ms_per_audio_s: number;
  /** Real-time streams one core could carry at that cost (1000 / cpu_ms_per_audio_s). */
  streams_per_core: number;
  /** Audio seconds processed per wall-clock second, one stream at full speed. */
  speed_x_realtime: number;
  /** speech_start events per pass (both sides should find the same utterances). */
  speech_starts: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The plugin side in its own process (see bench/lib/silero-plugin-side.ts), one pass per request. */
async function startPluginSide(
  options: VadBenchOptions,
): Promise<{ run: () => Promise<VadPass>; child: ChildProcess }> {
  const script = fileURLToPath(new URL('./lib/silero-plugin-side.ts', import.meta.url));
  const child = fork(script, [String(options.repeats), String(options.frameMs)], { execArgv: ['--import', 'tsx'] });
  const next = () =>
    new Promise<unknown>((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`plugin side exited (${code})`)));
    });
  await next(); // ready
  return {
    child,
    run: async () => {
      const reply = next();
      child.send({ run: true });
      return (await reply) as VadPass;
    },
  };
}

export async function main(options: VadBenchOptions = defaultVadBenchOptions): Promise<VadBenchRow[]> {
  const audio = await loadVadBenchAudio(options.repeats);
  const audioS = audio.samples.length / audio.sampleRate;
  const frameSamples = (audio.sampleRate * options.frameMs) / 1000;
  const frames = sliceFrames(audio, frameSamples);
  const hello48 = await readWav(fixturePath('hello-48k.wav'));
  const audio48: AudioFrame = {
    samples: new Int16Array(hello48.samples.length * options.repeats * 3),
    sampleRate: 48000,
  };
  for (let at = 0; at < audio48.samples.length; at += hello48.samples.length) audio48.samples.set(hello48.samples, at);
  const audio48S = audio48.samples.length / audio48.sampleRate;
  const frames48 = sliceFrames(audio48, (48000 * options.frameMs) / 1000);
  const rtcFrames48 = frames48.map((f) => new RtcAudioFrame(f.samples.slice(), 48000, 1, f.samples.length));

  // silence floor off: every window goes to the model, as in the plugin (this compares the model's cost per window)
  const parleyVad = await SileroVad.load({ silenceFloorDbfs: 'off' });
  const model = await SileroModel.load();
  const plugin = await startPluginSide(options);
  const n = options.streams;
  const pendingMs = audioS * 1000 + 1000;
  // stream i hears the audio from offset i·(length / n) on, wrapping: n different windows per batch
  const twice = new Int16Array(audio.samples.length * 2);
  twice.set(audio.samples);
  twice.set(audio.samples, audio.samples.length);
  const streamFrames = Array.from({ length: n }, (_, i) => {
    const at = Math.floor((i * audio.samples.length) / n / vadWindowSamples) * vadWindowSamples;
    return sliceFrames({ samples: twice.subarray(at, at + audio.samples.length), sampleRate: 16000 }, frameSamples);
  });
  const windows = Math.floor(audio.samples.length / vadWindowSamples);

  const sides: { name: string; seconds: number; run: () => Promise<VadPass> }[] = [
    {
      name: `Parley batched (${n} streams at once), per stream`,
      seconds: audioS * n,
      run: () =>
        measurePass(async () => {
          let starts = 0;
          const streams = streamFrames.map((frames, i) => {
            const stream = parleyVad.stream(
              { maxPendingMs: pendingMs },
              {
                event: (e) => void (i === 0 && e.type === 'speech_start' && starts++),
                error: (err) => console.error(err),
              },
            );
            for (const f of frames) stream.push(f);
            return stream;
          });
          await Promise.all(streams.map((s) => s.whenIdle()));
          streams.forEach((s) => s.close());
          return starts;
        }),
    },
    {
      name: 'Parley one stream (detectSpeech)',
      seconds: audioS,
      run: () =>
        measurePass(async () => {
          const events = await lastValueFrom(
            from(frames).pipe(detectSpeech(parleyVad, { maxPendingMs: pendingMs }), toArray()),
          );
          return events.filter((e) => e.type === 'speech_start').length;
        }),
    },
    {
      name: 'agents-plugin-silero VADStream',
      seconds: audioS,
      run: plugin.run,
    },
    {
      name: 'bare model, 1 window per run (this thread)',
      seconds: audioS,
      run: () =>
        measurePass(async () => {
          const state = newSileroState();
          for (let w = 0; w < windows; w++) {
            const src = audio.samples.subarray(w * vadWindowSamples, (w + 1) * vadWindowSamples);
            for (let i = 0; i < vadWindowSamples; i++) state.input[64 + i] = src[i]! / 32768;
            await model.run(state.input, state.rnn, 1);
          }
          return 0;
        }),
    },
    {
      name: `bare model, ${n} windows per run (this thread), per stream`,
      seconds: audioS * n,
      run: () =>
        measurePass(async () => {
          const input = new Float32Array(n * vadInputSamples);
          const state = new Float32Array(n * vadStateSize);
          for (let w = 0; w < windows; w++) {
            for (let b = 0; b < n; b++) {
              const src = twice.subarray(w * vadWindowSamples + b * 512, (w + 1) * vadWindowSamples + b * 512);
              for (let i = 0; i < vadWindowSamples; i++) input[b * vadInputSamples + 64 + i] = src[i]! / 32768;
            }
            await model.run(input, state, n);
          }
          return 0;
        }),
    },
    {
      name: 'Parley Resampler 48k→16k',
      seconds: audio48S,
      run: () =>
        measurePass(async () => {
          // the same loop as rtc-node's row below (resampleTo adds one RxJS hop per frame on top)
          const resampler = new Resampler(48000, 16000);
          for (const f of frames48) resampler.push(f.samples);
          resampler.flush();
          return 0;
        }),
    },
    {
      name: 'rtc-node AudioResampler 48k→16k',
      seconds: audio48S,
      run: () =>
        measurePass(async () => {
          const resampler = new AudioResampler(48000, 16000, 1, AudioResamplerQuality.MEDIUM);
          for (const f of rtcFrames48) resampler.push(f);
          resampler.flush();
          resampler.close();
          return 0;
        }),
    },
  ];

  for (const side of sides) await side.run(); // warm-up: JIT, ONNX arenas
  const passes = new Map<string, VadPass[]>(sides.map((s) => [s.name, []]));
  for (let r = 0; r < options.rounds; r++) {
    for (const side of sides) passes.get(side.name)!.push(await side.run());
  }

  const rows: VadBenchRow[] = sides.map((side) => {
    const p = passes.get(side.name)!;
    const cpu = median(p.map((x) => x.cpuMs)) / side.seconds;
    return {
      side: side.name,
      cpu_ms_per_audio_s: round(cpu, 2),
      streams_per_core: Math.floor(1000 / cpu),
      speed_x_realtime: Math.round((side.seconds * 1000) / median(p.map((x) => x.wallMs))),
      speech_starts: p[0]!.starts,
    };
  });
  const batched = rows[0]!;
  const single = rows[1]!;
  const pluginRow = rows[2]!;
  const ratio = round(batched.cpu_ms_per_audio_s / pluginRow.cpu_ms_per_audio_s, 2);
  const singleRatio = round(single.cpu_ms_per_audio_s / pluginRow.cpu_ms_per_audio_s, 2);
  const resampleRatio = round(rows[5]!.cpu_ms_per_audio_s / rows[6]!.cpu_ms_per_audio_s, 2);
  const vadStats = parleyVad.stats;
  const machine = machineInfo();
  const at = new Date().toISOString();

  const table = markdownTable(
    [
      'side',
      'CPU ms / audio s / stream',
      'real-time streams / core',
      'speed × real time (1 stream)',
      'speech starts / pass',
    ],
    rows.map((r) => [
      r.side,
      r.cpu_ms_per_audio_s,
      r.streams_per_core,
      r.speed_x_realtime,
      r.side.includes('VAD') || r.side.startsWith('Parley') ? r.speech_starts : '–',
    ]),
  );
  const markdown = [
    '# VAD cost per stream: Parley vs @livekit/agents-plugin-silero',
    '',
    table,
    '',
    `**Parley batched ÷ plugin, CPU per audio second per stream: ${ratio}×** (target ≤ 0.25×; one stream alone: ${singleRatio}×). ` +
      `**Parley resampler ÷ rtc-node AudioResampler: ${resampleRatio}×** (target ≤ 1×).`,
    '',
    `Batches on the VAD worker over the run: ${vadStats.batches}, ${vadStats.windows} windows, largest ${vadStats.largestBatch}.`,
    '',
    `Audio: ${vadBenchFixtures.join(', ')} × ${options.repeats} (${round(audioS, 1)} s) at 16 kHz in ${options.frameMs} ms frames, as fast as each side takes them (the batched row: ${n} streams at once, each from another offset, so every batch holds ${n} different windows; CPU per stream = process CPU ÷ ${n}); ` +
      `resampling rows: hello-48k.wav repeated (${round(audio48S, 1)} s). CPU = process user+system time (all threads), median of ${options.rounds} alternating rounds after a warm-up. ` +
      "Same ONNX file, one intra-op thread, both sides; Parley's silence floor off (every window through the model, as in the plugin); the plugin runs in a child process (its bundled onnxruntime-node 1.24 cannot load beside Parley's 1.30), each process timing its own CPU. Streams per core = 1000 ÷ CPU ms per audio second (model + stream logic only; no transport).",
    `Machine: ${machine.cpu_count} × ${machine.cpu_model}, Node ${machine.node}, load ${machine.load_avg_1m} at start; ${at}.`,
  ].join('\n');
  await publishResults(
    'vad',
    {
      at,
      machine,
      options,
      audio_seconds: audioS,
      batched_over_plugin_cpu_ratio: ratio,
      single_over_plugin_cpu_ratio: singleRatio,
      resampler_over_rtc_cpu_ratio: resampleRatio,
      rows,
    },
    markdown,
  );
  await parleyVad.close();
  await model.close();
  plugin.child.send({ exit: true });
  return rows;
}

if (isMain(import.meta.url)) {
  await main();
  process.exit(0); // rtc-node's native client keeps the event loop alive
}
