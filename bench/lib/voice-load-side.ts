/**
 * bench/voice.ts's end users, in their own process (forked with IPC) so that generating load does
 * not take the server's event loop: WebSocket voice clients that stream the bench clip and time
 * what comes back. All times here are this process's `performance.now()`; only differences are
 * reported. Jobs (see voice-load-protocol.ts):
 * - `turns`: one session, audio turn then text turn, repeated (benchmark 10a's client-side view);
 * - `load`: N sessions at real-time pace, then `close` (benchmark 10b);
 * - `talk`: N sessions speaking a conversation at real-time pace (bench/voice (c), voice-talk-side.ts).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AudioFrame } from '../../src/audio/audio-frame.js';
import { RealTimeMeter } from '../../src/pipeline/intake/real-time-meter.js';
import { VoiceClient } from '../../test/support/voice-client.js';
import { percentile } from './percentiles.js';
import { runTalk } from './voice-talk-side.js';
import { framesOf, loadVoiceBenchClip, loopClip } from './voice-bench-audio.js';
import type {
  ChildMessage,
  LoadJob,
  LoadResult,
  ParentMessage,
  TurnSample,
  TurnsJob,
  TurnsResult,
} from './voice-load-protocol.js';

const send = (message: ChildMessage) => process.send!(message);
const clip = await loadVoiceBenchClip();
let live: VoiceClient[] = [];
let waitGo: (() => void) | undefined;

function asBuffers(frames: AudioFrame[]): Buffer[] {
  return frames.map((f) => Buffer.from(f.samples.buffer, f.samples.byteOffset, f.samples.byteLength));
}

async function connect(grant: { connection_url: string; connection_token: string }): Promise<VoiceClient> {
  const client = await VoiceClient.connect(grant.connection_url, grant.connection_token);
  await client.untilEvent('ready', 1, 10_000);
  return client;
}

const count = (client: VoiceClient, type: string) => client.eventsOf(type).length;

/** The first event of `type` after the first `skip` of them. */
function nth(client: VoiceClient, type: string, skip: number): { at: number } | undefined {
  return client.eventsOf(type)[skip];
}

async function runTurns(job: TurnsJob): Promise<TurnsResult> {
  const client = await connect(job.session);
  live = [client];
  const frames = asBuffers(framesOf(clip, job.frameMs));
  const samples: TurnSample[] = [];
  // A mirror of the server's real-time meter: the fast parts never run past the allowance.
  const meter = new RealTimeMeter(job.allowanceMs, performance.now());
  for (let i = 0; i < job.audioTurns; i++) {
    // Audio turn: fast up to the end of speech, real time from there until the answer, fast again.
    const trigger = job.triggerFrames[i]!;
    const spokenUntil = job.spokenUntilFrames[i]!;
    const before = {
      transcript: count(client, 'transcript'),
      audio: count(client, 'audio_start'),
      answers: client.answers().length,
      interrupted: count(client, 'interrupted'),
    };
    let due = Number.NaN;
    let triggerAt = Number.NaN;
    let speechEndAt = Number.NaN;
    for (let k = 0; k < frames.length; k++) {
      const realTime = k >= spokenUntil && client.answers().length === before.answers;
      if (realTime) {
        if (Number.isNaN(due)) due = performance.now();
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        due += job.frameMs;
        meter.admit(job.frameMs, performance.now());
      } else {
        while (!meter.admit(job.frameMs, performance.now())) await sleep(job.frameMs);
        if (k % job.speed === 0) await sleep(job.frameMs); // about `speed`× real time
      }
      client.sendRaw(frames[k]!);
      if (k === spokenUntil) speechEndAt = performance.now();
      if (k === trigger) triggerAt = performance.now();
    }
    await client.until(
      () => count(client, 'audio_start') > before.audio && client.answers().length > before.answers,
      job.timeoutMs,
      `answer to audio turn ${i + 1}`,
    );
    samples.push({
      kind: 'audio',
      send_to_transcript_ms: nth(client, 'transcript', before.transcript)!.at - triggerAt,
      speech_end_to_audio_start_ms: nth(client, 'audio_start', before.audio)!.at - speechEndAt,
      interrupted: count(client, 'interrupted') > before.interrupted,
    });
    await client.until(() => count(client, 'audio_end') > before.audio, job.timeoutMs, 'end of the answer');
    await sleep(job.gapMs);

    // Text turn: the same answer path with the VAD and the audio frames left out.
    const textBefore = {
      audio: count(client, 'audio_start'),
      interrupted: count(client, 'interrupted'),
    };
    const sentAt = performance.now();
    client.sendJson({ type: 'text', text: job.text });
    await client.until(() => count(client, 'audio_end') > textBefore.audio, job.timeoutMs, `text turn ${i + 1}`);
    samples.push({
      kind: 'text',
      send_to_transcript_ms: null,
      speech_end_to_audio_start_ms: nth(client, 'audio_start', textBefore.audio)!.at - sentAt,
      interrupted: count(client, 'interrupted') > textBefore.interrupted,
    });
    await sleep(job.gapMs);
  }
  return { job: 'turns', samples };
}

async function runLoad(job: LoadJob): Promise<LoadResult> {
  live = await Promise.all(job.sessions.map(connect));
  const frames = asBuffers(framesOf(loopClip(clip, job.durationMs), job.frameMs));
  const frameCount = Math.min(frames.length, Math.floor(job.durationMs / job.frameMs));
  const triggers = job.triggerFrames.filter((k) => k < frameCount);
  send({ connected: live.length });
  await new Promise<void>((resolve) => (waitGo = resolve));

  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const lateness = new Float64Array(live.length * frameCount);
  const triggerAt = live.map(() => new Float64Array(triggers.length).fill(Number.NaN));
  let framesSent = 0;
  await Promise.all(
    live.map(async (client, s) => {
      const start = t0 + (s / live.length) * job.staggerMs;
      let next = 0;
      for (let k = 0; k < frameCount; k++) {
        const due = start + k * job.frameMs;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        if (client.ws.readyState !== client.ws.OPEN) return;
        client.sendRaw(frames[k]!);
        const sentAt = performance.now();
        lateness[s * frameCount + k] = sentAt - due;
        framesSent++;
        if (k === triggers[next]) triggerAt[s]![next++] = sentAt;
      }
    }),
  );
  const streamedAt = performance.now();
  // Outstanding transcripts: the last utterance may still be in flight.
  const deadline = streamedAt + job.graceMs;
  while (performance.now() < deadline && live.some((c) => count(c, 'transcript') < triggers.length)) await sleep(10);
  const cpuUsed = process.cpuUsage(cpu);
  loopDelay.disable();

  const latencies: number[] = [];
  let missing = 0;
  live.forEach((client, s) => {
    const transcripts = client.eventsOf('transcript');
    triggers.forEach((_, k) => {
      const sent = triggerAt[s]![k]!;
      const got = transcripts[k];
      if (Number.isNaN(sent)) return;
      if (got === undefined) missing++;
      else latencies.push(got.at - sent);
    });
  });
  const late = lateness.subarray(0, live.length * frameCount).sort();
  const ms = (ns: number) => ns / 1e6;
  return {
    job: 'load',
    transcript_latencies_ms: latencies,
    missing_transcripts: missing,
    frames_sent: framesSent,
    send_lateness_ms: {
      p50: percentile(late, 50),
      p99: percentile(late, 99),
      max: late[late.length - 1] ?? Number.NaN,
    },
    client_loop_delay_ms: {
      p50: ms(loopDelay.percentile(50)),
      p99: ms(loopDelay.percentile(99)),
      max: ms(loopDelay.max),
    },
    client_cpu_ms: (cpuUsed.user + cpuUsed.system) / 1000,
    wall_ms: streamedAt - t0,
    responses: live.reduce((n, c) => n + c.answers().length, 0),
    errors: live.flatMap((c) => c.eventsOf('error').map((e) => `${String(e['code'])}: ${String(e['message'])}`)),
  };
}

/** Hangs up every session (`end`) and waits for the server to close them. */
async function closeAll(): Promise<number> {
  const clients = live;
  live = [];
  await Promise.all(
    clients.map(async (c) => {
      if (c.ws.readyState === c.ws.OPEN) c.sendJson({ type: 'end' });
      await c.untilClosed(10_000).catch(() => c.ws.terminate());
    }),
  );
  return clients.length;
}

process.on('message', (message: ParentMessage) => {
  if ('exit' in message) process.exit(0);
  if ('go' in message) return waitGo?.();
  const work: Promise<ChildMessage> =
    'close' in message
      ? closeAll().then((closed) => ({ closed }))
      : message.job === 'turns'
        ? runTurns(message).then(async (result) => (await closeAll(), result))
        : message.job === 'talk'
          ? runTalk(message, connect)
          : runLoad(message);
  work.then(send, (err: unknown) => send({ failed: err instanceof Error ? (err.stack ?? err.message) : String(err) }));
});
send({ ready: true });
