/**
 * The `talk` job of bench/voice's client process (voice-load-side.ts): N sessions each stream a
 * recorded conversation (bench/voice/talk-clip.ts: questions, each followed by a pause) once, in
 * 20 ms frames at real-time pace, starts staggered, and time what the user waits: the frame holding
 * each question's last speech sample sent → the first `audio_start` after it (before the next
 * question ends). The sessions are hung up at the end.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { readWav } from '../../src/audio/wav.js';
import type { VoiceClient } from '../../test/support/voice-client.js';
import { percentile } from './percentiles.js';
import { framesOf } from './voice-bench-audio.js';
import type { SessionGrant, TalkJob, TalkResult } from './voice-load-protocol.js';

export async function runTalk(
  job: TalkJob,
  connect: (grant: SessionGrant) => Promise<VoiceClient>,
): Promise<TalkResult> {
  const clip = await readWav(job.clipPath);
  const frames = framesOf(clip, job.frameMs).map((f) =>
    Buffer.from(f.samples.buffer, f.samples.byteOffset, f.samples.byteLength),
  );
  const ends = job.speechEndFrames;
  const clients = await Promise.all(job.sessions.map(connect));
  try {
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    loopDelay.enable();
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    const lateness = new Float64Array(clients.length * frames.length);
    const endSentAt = clients.map(() => new Float64Array(ends.length).fill(Number.NaN));
    await Promise.all(
      clients.map(async (client, s) => {
        const start = t0 + (s / clients.length) * job.staggerMs;
        let next = 0;
        for (let k = 0; k < frames.length; k++) {
          const due = start + k * job.frameMs;
          const wait = due - performance.now();
          if (wait > 0) await sleep(wait);
          if (client.ws.readyState !== client.ws.OPEN) return;
          client.sendRaw(frames[k]!);
          const sentAt = performance.now();
          lateness[s * frames.length + k] = sentAt - due;
          if (k === ends[next]) endSentAt[s]![next++] = sentAt;
        }
      }),
    );
    const streamedAt = performance.now();
    const waits = () => clients.map((c, s) => answerWaits(c, endSentAt[s]!));
    const deadline = streamedAt + job.graceMs;
    while (performance.now() < deadline && waits().some((w) => w.includes(null))) await sleep(10);
    const used = process.cpuUsage(cpu);
    loopDelay.disable();
    const late = lateness.sort();
    const ms = (ns: number) => ns / 1e6;
    return {
      job: 'talk',
      waits_ms: waits(),
      transcripts: clients.map((c) => c.eventsOf('transcript').map((e) => String(e['text']))),
      send_lateness_ms: { p50: percentile(late, 50), p99: percentile(late, 99), max: late[late.length - 1] ?? 0 },
      client_loop_delay_ms: {
        p50: ms(loopDelay.percentile(50)),
        p99: ms(loopDelay.percentile(99)),
        max: ms(loopDelay.max),
      },
      client_cpu_ms: (used.user + used.system) / 1000,
      wall_ms: streamedAt - t0,
      errors: clients.flatMap((c) => c.eventsOf('error').map((e) => `${String(e['code'])}: ${String(e['message'])}`)),
    };
  } finally {
    await Promise.all(
      clients.map(async (c) => {
        if (c.ws.readyState === c.ws.OPEN) c.sendJson({ type: 'end' });
        await c.untilClosed(10_000).catch(() => c.ws.terminate());
      }),
    );
  }
}

/** Per question: its speech-end frame sent → the first `audio_start` before the next one's; null when none came. */
function answerWaits(client: VoiceClient, endSentAt: Float64Array): (number | null)[] {
  const starts = client.eventsOf('audio_start').map((e) => e.at);
  return Array.from(endSentAt, (sent, i) => {
    const until = endSentAt[i + 1] ?? Number.POSITIVE_INFINITY;
    const at = starts.find((t) => t >= sent && t < until);
    return Number.isNaN(sent) || at === undefined ? null : at - sent;
  });
}
