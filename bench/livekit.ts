/**
 * Memory and CPU per live voice session through the LiveKit bridge, beside the WebSocket transport
 * in the same run (~40 s). Both phases: N sessions of one passthrough agent, instant STT/TTS, a
 * webhook answering at once (in this process), the 16 kHz bench clip streamed at real-time pace so
 * the VAD runs on every frame and turns happen.
 * - LiveKit: jobs dispatched by a fake LiveKit over the real worker protocol; each room stood in for
 *   at Parley's AgentRoom interface: the user's microphone arrives as rtc-node AudioFrames (10 ms,
 *   what AudioStream yields), the agent's speech goes out through a real rtc-node AudioSource. The
 *   feeder runs in this process, so its cost (one AudioFrame per 10 ms per session) is included.
 * - WebSocket: the same audio from bench/lib's client process (20 ms binary frames), as bench/voice.
 * Not measured (no LiveKit server here): rtc-node's native side decoding Opus, resampling and
 * encoding, which runs on its own threads in production.
 *
 *   node --import tsx bench/livekit.ts            # BENCH_LIVEKIT_SESSIONS (16), BENCH_LIVEKIT_STREAM_MS (8000)
 */
import { AudioFrame } from '@livekit/rtc-node';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Parley } from '../src/parley.js';
import { FakeRooms, type FakeRoom, type FrameQueue } from '../test/support/fake-livekit/fake-room.js';
import { FakeLivekit } from '../test/support/fake-livekit/server.js';
import { admin } from './lib/bench-api.js';
import { benchConfig, openBenchParley } from './lib/bench-parley.js';
import { instantSpeech } from './lib/instant-speech.js';
import { TestRedis } from '../test/support/redis-server.js';
import { machineInfo, markdownTable, round, publishResults } from './lib/report.js';
import { framesOf, loadVoiceBenchClip, loopClip } from './lib/voice-bench-audio.js';
import { VoiceClientProcess } from './lib/voice-client-process.js';
import { startOkWebhook } from './lib/webhook-server.js';
import type { LoadResult } from './lib/voice-load-protocol.js';

const sessions = Number(process.env['BENCH_LIVEKIT_SESSIONS'] ?? 16);
const streamMs = Number(process.env['BENCH_LIVEKIT_STREAM_MS'] ?? 8_000);

interface PhaseResult {
  transport: 'livekit' | 'websocket';
  sessions: number;
  stream_ms: number;
  /** Parley process CPU while streaming, in cores (CPU ms / wall ms). */
  cpu_cores: number;
  cpu_ms_per_session_s: number;
  /** RSS while all sessions stream, minus RSS before they were opened. */
  rss_mb_per_session: number;
  heap_mb_per_session: number;
  turns_answered: number;
}

const mb = (bytes: number) => bytes / 1024 / 1024;

async function main(): Promise<void> {
  const clip = loopClip(await loadVoiceBenchClip(), streamMs);
  const redis = await TestRedis.start({ external: false, persistence: false });
  const fake = await FakeLivekit.start();
  const rooms = new FakeRooms(fake.apiKey, fake.apiSecret, { realAudioSource: true });
  const webhook = await startOkWebhook();
  let parley: Parley | undefined;
  let clients: VoiceClientProcess | undefined;
  try {
    const config = await benchConfig(redis.url, { PARLEY_MAX_SESSIONS: String(sessions * 2), ...fake.env });
    let url: string;
    ({ parley, url } = await openBenchParley(config, {
      speech: instantSpeech(),
      livekit: { connect: rooms.connect },
    }));
    while (fake.registered('parley').length === 0) await sleep(20);
    const agent = (await admin(url, 'POST', '/admin/v1/agents', {
      name: 'Bench LiveKit agent',
      mode: 'passthrough',
      greeting: null,
      webhook_url: `${webhook.url}/hook`,
    })) as { id: string; agent_token: string };
    clients = await VoiceClientProcess.start();

    console.log(`livekit: ${sessions} LiveKit sessions streaming ${streamMs} ms…`);
    const livekit = await livekitPhase(parley, fake, rooms, agent.id, clip);
    console.log(`livekit: ${sessions} WebSocket sessions streaming ${streamMs} ms…`);
    const websocket = await websocketPhase(parley, url, agent.agent_token, clients, clip);
    await report([livekit, websocket]);
  } finally {
    await clients?.stop().catch(() => undefined);
    await parley?.close();
    await fake.stop();
    await webhook.close();
    await redis.close();
  }
}

/** Measures CPU and memory of this process while `streaming` runs, against before `open`. */
async function measure(
  transport: PhaseResult['transport'],
  open: () => Promise<void>,
  streaming: () => Promise<void>,
  turns: () => number,
): Promise<PhaseResult> {
  global.gc?.();
  const before = process.memoryUsage();
  await open();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let peakRss = 0;
  let peakHeap = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 250);
  await streaming();
  clearInterval(sampler);
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return {
    transport,
    sessions,
    stream_ms: streamMs,
    cpu_cores: round(cpuMs / wall, 3),
    cpu_ms_per_session_s: round(cpuMs / sessions / (wall / 1000), 2),
    rss_mb_per_session: round(mb(peakRss - before.rss) / sessions, 2),
    heap_mb_per_session: round(mb(peakHeap - before.heapUsed) / sessions, 2),
    turns_answered: turns(),
  };
}

async function livekitPhase(
  parley: Parley,
  fake: FakeLivekit,
  rooms: FakeRooms,
  agentId: string,
  clip: { samples: Int16Array; sampleRate: number },
): Promise<PhaseResult> {
  const open: { room: FakeRoom; mic: FrameQueue }[] = [];
  const result = await measure(
    'livekit',
    async () => {
      for (let i = 0; i < sessions; i++) {
        const name = `bench-${i}`;
        const { worker } = await fake.dispatch(name, 'parley', JSON.stringify({ agent_id: agentId }));
        if (worker === null) throw new Error(`job for ${name} refused`);
        const room = await rooms.joined(name);
        open.push({ room, mic: room.userJoins(`user-${i}`) });
      }
      while (parley.services.supervisor.size < sessions) await sleep(10);
    },
    async () => {
      // Every session gets the next 10 ms of the clip each tick, paced against the wall clock.
      const n = clip.sampleRate / 100;
      const start = performance.now();
      for (let k = 0; (k + 1) * n <= clip.samples.length; k++) {
        for (const { mic } of open)
          mic.push(new AudioFrame(clip.samples.slice(k * n, (k + 1) * n), clip.sampleRate, 1, n));
        const wait = start + (k + 1) * 10 - performance.now();
        if (wait > 0) await sleep(wait);
      }
      await sleep(1_000);
    },
    () => open.reduce((n, { room }) => n + room.captions().filter((c) => c.senderIdentity === undefined).length, 0),
  );
  for (const { room } of open) room.userLeaves();
  while (parley.services.supervisor.size > 0) await sleep(20);
  return result;
}

async function websocketPhase(
  parley: Parley,
  url: string,
  agentToken: string,
  clients: VoiceClientProcess,
  clip: { samples: Int16Array; sampleRate: number },
): Promise<PhaseResult> {
  let load: LoadResult | undefined;
  const frames = framesOf(clip, 20).length;
  const result = await measure(
    'websocket',
    async () => {
      const grants = [];
      for (let i = 0; i < sessions; i++) {
        const res = await fetch(`${url}/sdk/v1/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ agent_token: agentToken, transport: 'websocket' }),
        });
        grants.push((await res.json()) as { connection_url: string; connection_token: string });
      }
      clients.send({
        job: 'load',
        sessions: grants,
        frameMs: 20,
        durationMs: (frames * 20) | 0,
        staggerMs: 0,
        triggerFrames: [],
        graceMs: 1_000,
      });
      const connected = await clients.next();
      if (!('connected' in connected)) throw new Error(`clients answered ${JSON.stringify(connected)}`);
      while (parley.services.supervisor.size < sessions) await sleep(10);
    },
    async () => {
      clients.send({ go: true });
      const answer = await clients.next();
      if (!('job' in answer) || answer.job !== 'load') throw new Error(`clients answered ${JSON.stringify(answer)}`);
      load = answer;
      await sleep(1_000); // as the LiveKit phase: the last turns finish
    },
    () => load?.responses ?? 0,
  );
  clients.send({ close: true });
  await clients.next();
  return result;
}

async function report(results: PhaseResult[]): Promise<void> {
  const machine = machineInfo();
  const [lk, ws] = results as [PhaseResult, PhaseResult];
  const rows = results.map((r) => [
    r.transport,
    r.sessions,
    r.cpu_cores,
    r.cpu_ms_per_session_s,
    r.rss_mb_per_session,
    r.heap_mb_per_session,
    r.turns_answered,
  ]);
  const table = markdownTable(
    [
      'transport',
      'sessions',
      'Parley cores',
      'CPU ms per session-second',
      'RSS MB per session',
      'heap MB per session',
      'turns answered',
    ],
    rows,
  );
  const ratio = round(lk.cpu_ms_per_session_s / ws.cpu_ms_per_session_s, 2);
  const markdown = [
    `# LiveKit bridge vs WebSocket transport (${machine.cpu_model}, ${machine.node}, load ${machine.load_avg_1m})`,
    '',
    table,
    '',
    `CPU per LiveKit session is ${ratio}x the WebSocket one (rtc-node's native media threads not included).`,
  ].join('\n');
  await publishResults('livekit', { machine, results, cpu_ratio_livekit_over_websocket: ratio }, markdown);
}

await main();
