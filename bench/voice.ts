/**
 * Voice pipeline benchmarks (issue "Voice pipeline", items 10a and 10b), over the built-in
 * WebSocket transport with instant STT and TTS (bench/lib/instant-speech.ts), so that what is left
 * is what Parley itself adds.
 *
 * Processes: Parley runs in this process (its event loop and CPU are measured directly); the
 * voice clients run in a forked child (bench/lib/voice-load-side.ts) so generating load does not
 * take Parley's event loop; the operator's webhook (answers {"response":"ok"} at once) runs in a
 * third; redis-server in a fourth.
 *
 * (a) Turn latency: one session, an audio turn (hello.wav, 8× real time up to the frame that
 *     completes the VAD's end-of-speech decision, 1× until the answer) then a text turn, repeated.
 *     In Parley: each agent message's `end_to_end_ms` (SPEECH_END reached the session machine →
 *     first audio frame handed to the transport) with its parts, read back from the admin API.
 *     Client side: end-of-speech frame sent → `audio_start` received. Baseline: the text turn
 *     (`{"type":"text"}`: no VAD, no STT) over the same path.
 * (b) Capacity: N = 1, 2, 4, … sessions each streaming the clip in a loop at real-time pace in
 *     20 ms frames, VAD on every frame. Frame lag = Parley's event-loop delay (every session's VAD
 *     runs on that thread: onnxruntime-node runs inference synchronously). Cross-check end to end:
 *     end-of-speech frame sent → `transcript` received, against its unloaded median from (a).
 *     Stops at the first N whose p99 frame lag passes 20 ms (confirmed by a repeat), or at the
 *     time budget. Also: CPU per session, Parley's event-loop thread apart (/proc).
 *
 *   node --import tsx bench/voice.ts        # writes bench/results/voice.{json,md}
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { openParley, type Parley } from '../src/parley.js';
import { SileroVad } from '../src/pipeline/vad/silero-vad.js';
import { callWebhook } from '../src/respond/webhook.js';
import { VoiceClient } from '../test/support/voice-client.js';
import { timeCalls, type CallTimer } from './lib/call-timer.js';
import { instantSpeech, instantTranscript } from './lib/instant-speech.js';
import { isMain } from './lib/is-main.js';
import { summarize, type LatencySummary } from './lib/percentiles.js';
import { traceRedis } from './lib/redis-trace.js';
import { TestRedis } from '../test/support/redis-server.js';
import { machineInfo, markdownTable, round, writeResults, type Align, type MachineInfo } from './lib/report.js';
import { serveWebhook } from './lib/webhook-server.js';
import { processCpuMs, spawnServer, type ServerProcess } from './lib/server-process.js';
import { threadCpuMs } from './lib/thread-cpu.js';
import { framesOf, loadVoiceBenchClip, loopClip, speechEndFrames, voiceBenchFixture } from './lib/voice-bench-audio.js';
import { VoiceClientProcess } from './lib/voice-client-process.js';
import type { ChildMessage, LoadResult, SessionGrant, TurnsResult } from './lib/voice-load-protocol.js';

const adminKey = 'bench-admin-key-0123456789';
const thisFile = fileURLToPath(import.meta.url);
const targetP50Ms = 10;
/** monitorEventLoopDelay's timer period; its samples are periods, so this is subtracted. */
const loopResolutionMs = 5;
/** The agent's VAD settings (Parley's defaults), also used for the offline pass that finds end-of-speech frames. */
const vadSettings = { threshold: 0.5, minSilenceMs: 550, prefixPaddingMs: 300, maxUtteranceMs: 30_000 };

export interface VoiceBenchOptions {
  frameMs: number;
  /** (a) audio turns measured (each followed by a text turn), after `warmupTurns` thrown away. */
  turns: number;
  warmupTurns: number;
  /** (a) pace of the audio up to the end-of-speech frame, × real time. */
  turnSpeed: number;
  /** (a) pause after each answer before the next turn. */
  turnGapMs: number;
  /** (b) session counts to try, in order. */
  sessions: number[];
  /** (b) how long each session streams. */
  streamMs: number;
  /** (b) session starts spread over this long. */
  staggerMs: number;
  /** (b) wait for outstanding transcripts after the last frame. */
  graceMs: number;
  /** (b) p99 frame lag (Parley's event-loop delay) above this, twice, ends the ramp. */
  lagLimitMs: number;
  /** (b) the ramp stops before a step that would end past this much time. */
  loadBudgetMs: number;
}

export const defaultVoiceBenchOptions: VoiceBenchOptions = {
  frameMs: 20,
  turns: 30,
  warmupTurns: 3,
  turnSpeed: 8,
  turnGapMs: 150,
  sessions: [1, 2, 4, 8, 16, 32, 64, 128, 256],
  streamMs: 10_000,
  staggerMs: 2_000,
  graceMs: 1_500,
  lagLimitMs: 20,
  loadBudgetMs: 120_000,
};

export interface Percentiles {
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

export interface TurnRow {
  measure: string;
  /** Who measured it: Parley's own timings or the client. */
  where: 'parley' | 'client' | 'reference';
  summary: LatencySummary;
}

export interface TurnLatencyReport {
  measured_turns: number;
  warmup_turns: number;
  speed_x: number;
  target_p50_ms: number;
  /** Audio turn `end_to_end_ms` p50 < target. */
  within_target: boolean;
  rows: TurnRow[];
  /** Client-side audio turn p50 − text turn p50: what the audio path (frames, VAD, SPEECH_END) adds. */
  audio_path_added_p50_ms: number;
  interrupted_turns: number;
  /** Redis commands sent during one audio turn (MONITOR, untimed), in order. */
  redis_commands_per_audio_turn: string[];
}

export interface LoadRow {
  sessions: number;
  /** 2 when the step was repeated to confirm a miss. */
  attempt: number;
  utterances: number;
  missing_transcripts: number;
  /**
   * Frame lag: Parley's event-loop delay (monitorEventLoopDelay, its timer period subtracted), i.e.
   * how long anything that became ready (an arriving frame, a VAD window) waited for the thread
   * that runs every session's VAD. The ramp's limit applies to its p99.
   */
  frame_lag_ms: Percentiles;
  /** Cross-check, end to end: end-of-speech frame sent → `transcript` received. */
  transcript_ms: Percentiles;
  /** transcript_ms p99 − its unloaded median from (a). */
  transcript_lag_p99_ms: number;
  /** Each 32 ms VAD window in Parley: inference called → result (a setImmediate hop on the event loop + the model run). */
  vad_window_ms: Percentiles;
  /** CPU time ÷ wall time over the step: cores each process used; `parley_main` is Parley's event-loop thread alone. */
  cores: { parley: number; parley_main: number; clients: number; redis: number; webhook: number };
  /** Parley CPU ms per second of streamed audio per session, its idle CPU taken out (all threads, and the event-loop thread). */
  parley_cpu_ms_per_session_s: { all: number; main: number };
  client_send_late_p99_ms: number;
  client_loop_delay_p99_ms: number;
  responses: number;
  errors: string[];
  within_limit: boolean;
}

export interface LoadReport {
  frame_ms: number;
  stream_ms: number;
  stagger_ms: number;
  lag_limit_ms: number;
  /** Median end-of-speech frame → transcript with one idle session, from (a). */
  unloaded_transcript_p50_ms: number;
  /** Parley with no session, over 3 s: event-loop delay (the machine's noise floor) and CPU ms per s. */
  idle: { frame_lag_ms: Percentiles; cpu_ms_per_s: { all: number; main: number } };
  rows: LoadRow[];
  /** Largest N whose (last) attempt stayed within the limit; null if none did. */
  max_sessions_within_limit: number | null;
  stopped_because: string;
  /**
   * Not a measurement: where Parley's CPU would run out on an otherwise idle 2-core machine, from
   * the per-session cost at the largest N measured (event-loop thread at 100 %, or both cores at
   * 100 % with the clients and Redis elsewhere). Latency passes 20 ms before either.
   */
  cpu_ceiling: { from_sessions: number; event_loop_thread_full_at: number; two_cores_full_at: number } | null;
}

export interface VoiceReport {
  bench: 'voice';
  started_at: string;
  machine: MachineInfo;
  /** 1-minute load average when the bench ended. */
  load_avg_1m_at_end: number;
  options: VoiceBenchOptions;
  clip: string;
  turn_latency: TurnLatencyReport;
  load: LoadReport;
}

export async function main(overrides: Partial<VoiceBenchOptions> = {}): Promise<VoiceReport> {
  const options = { ...defaultVoiceBenchOptions, ...overrides };
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const redis = await TestRedis.start({ external: false, persistence: false });
  let webhook: ServerProcess | undefined;
  let parley: Parley | undefined;
  let clients: VoiceClientProcess | undefined;
  try {
    webhook = await spawnServer({ name: 'voice-webhook', script: thisFile, args: ['--serve', 'webhook'] });
    const config = loadConfig({
      NODE_ENV: 'production',
      PARLEY_LOG_LEVEL: 'silent',
      PARLEY_ADMIN_API_KEY: adminKey,
      REDIS_URL: redis.url,
      PARLEY_RATE_LIMIT_RPM: '1000000',
      PARLEY_RATE_LIMIT_BURST: '1000000',
      MODELS_DIR: process.env['MODELS_DIR'] ?? '../shared/models',
    });
    parley = await openParley(
      { ...config, adminApiKey: adminKey, redisUrl: redis.url },
      createLogger(config.logLevel),
      {
        speech: instantSpeech(),
      },
    );
    const url = `http://127.0.0.1:${await parley.listen(0, '127.0.0.1')}`;
    // Probes (timed only while recording): the user-message write on the turn path, and each VAD window.
    const probes: Probes = {
      userWrites: timeCalls(
        parley.store.conversations,
        'appendMessage',
        (_id, input) => input.role === 'user' && input.timings !== null && input.timings !== undefined,
      ),
      vadWindows: timeCalls(parley.services.vad, 'infer'),
    };
    const agentToken = await createAgent(url, `${webhook.url}/hook`);
    const redisPid = Number(/process_id:(\d+)/.exec(String(await parley.redis.info('server')))?.[1] ?? Number.NaN);
    const triggers = await findTriggers(options);
    clients = await VoiceClientProcess.start();

    console.log(`voice (a): ${options.warmupTurns} + ${options.turns} audio turns, each followed by a text turn…`);
    const turnLatency = await measureTurns(options, {
      url,
      agentToken,
      webhookUrl: `${webhook.url}/hook`,
      redisUrl: redis.url,
      parley,
      clients,
      probes,
      triggers: triggers.turns,
    });
    console.log(
      `voice (b): ramping sessions ${options.sessions.join(', ')} (budget ${options.loadBudgetMs / 1000} s)…`,
    );
    const load = await measureLoad(options, {
      url,
      agentToken,
      parley,
      clients,
      probes,
      triggers: triggers.load,
      unloadedP50: turnLatency.rows.find((r) => r.measure === clientTranscriptMeasure)!.summary.p50_ms,
      cpu: {
        redis: () => processCpuMs(redisPid),
        webhook: () => webhook!.cpuMs(),
        clients: () => processCpuMs(clients!.pid),
      },
    });

    const report: VoiceReport = {
      bench: 'voice',
      started_at: startedAt,
      machine,
      load_avg_1m_at_end: machineInfo().load_avg_1m,
      options,
      clip: voiceBenchFixture,
      turn_latency: turnLatency,
      load,
    };
    const markdown = renderMarkdown(report);
    const paths = await writeResults('voice', report, markdown);
    console.log(markdown);
    console.log(`\nwrote ${paths.json} and ${paths.markdown}`);
    return report;
  } finally {
    await clients?.stop().catch(() => {});
    await parley?.close().catch(() => {});
    await webhook?.stop().catch(() => {});
    await redis.close();
  }
}

// ---- offline VAD pass: which frame completes each end-of-speech decision ----

async function findTriggers(options: VoiceBenchOptions): Promise<{ turns: number[]; load: number[] }> {
  const clip = await loadVoiceBenchClip();
  const vad = await SileroVad.load();
  try {
    // (a): one session hears the clip once per audio turn, framed per turn.
    const turnFrames = framesOf(clip, options.frameMs);
    const audioTurns = options.warmupTurns + options.turns;
    const all = Array.from({ length: audioTurns }, () => turnFrames).flat();
    const ends = await speechEndFrames(vad, all, vadSettings);
    const turns = ends.frames.map((i) => i % turnFrames.length);
    const perTurn = ends.frames.map((i) => Math.floor(i / turnFrames.length));
    if (ends.speechStarts !== audioTurns || perTurn.some((t, i) => t !== i)) {
      throw new Error(
        `the VAD should end exactly one utterance per turn in ${voiceBenchFixture}; got ends in turns ${perTurn.join(',')}`,
      );
    }
    // (b): every session streams the same looped clip from its start.
    const loopFrames = framesOf(loopClip(clip, options.streamMs), options.frameMs);
    const load = (await speechEndFrames(vad, loopFrames, vadSettings)).frames;
    return { turns, load };
  } finally {
    await vad.close();
  }
}

// ---- (a) turn latency ----

const clientTranscriptMeasure = 'audio turn: end-of-speech frame sent → transcript received';
const clientAudioMeasure = 'audio turn: end-of-speech frame sent → audio_start received';
const clientTextMeasure = 'baseline: text turn: text sent → audio_start received';
const textMeasure = 'baseline: text turn, same path without VAD and STT (end_to_end_ms)';

function row(rows: TurnRow[], measure: string): LatencySummary {
  return rows.find((r) => r.measure === measure)!.summary;
}

interface Probes {
  userWrites: CallTimer;
  vadWindows: CallTimer;
}

interface TurnContext {
  url: string;
  probes: Probes;
  agentToken: string;
  webhookUrl: string;
  redisUrl: string;
  parley: Parley;
  clients: VoiceClientProcess;
  triggers: number[];
}

interface StoredMessage {
  role: string;
  status: string;
  timings: Record<string, number> | null;
}

async function measureTurns(options: VoiceBenchOptions, ctx: TurnContext): Promise<TurnLatencyReport> {
  const grant = await openSession(ctx.url, ctx.agentToken);
  ctx.probes.userWrites.recording = true;
  const result = await ctx.clients.ask(
    {
      job: 'turns',
      session: grant,
      audioTurns: options.warmupTurns + options.turns,
      speed: options.turnSpeed,
      frameMs: options.frameMs,
      triggerFrames: ctx.triggers,
      gapMs: options.turnGapMs,
      text: instantTranscript,
      timeoutMs: 20_000,
    },
    (m: ChildMessage): m is TurnsResult => 'job' in m && m.job === 'turns',
  );
  ctx.probes.userWrites.recording = false;
  const userWrites = ctx.probes.userWrites.take().slice(options.warmupTurns);
  const session = (await admin(ctx.url, 'GET', `/admin/v1/sessions/${grant.session_id}`)) as {
    conversation_id: string;
  };
  const conversation = (await admin(ctx.url, 'GET', `/admin/v1/conversations/${session.conversation_id}`)) as {
    messages: StoredMessage[];
  };
  const replies = conversation.messages.filter(
    (m) => m.role === 'agent' && m.status === 'complete' && m.timings !== null,
  );
  const audio = replies
    .filter((m) => m.timings!['stt_ms'] !== undefined)
    .slice(options.warmupTurns)
    .map((m) => m.timings!);
  const text = replies
    .filter((m) => m.timings!['stt_ms'] === undefined)
    .slice(options.warmupTurns)
    .map((m) => m.timings!);
  const clientAudio = result.samples.filter((s) => s.kind === 'audio').slice(options.warmupTurns);
  const clientText = result.samples.filter((s) => s.kind === 'text').slice(options.warmupTurns);
  if (audio.length !== options.turns || text.length !== options.turns) {
    throw new Error(
      `expected ${options.turns} audio and text replies with timings, got ${audio.length} and ${text.length}`,
    );
  }
  const t = (list: Record<string, number>[], key: string) => list.map((x) => x[key] ?? Number.NaN);
  const rest = (list: Record<string, number>[]) =>
    list.map((x) => x['end_to_end_ms']! - (x['stt_ms'] ?? 0) - x['response_ms']! - x['first_audio_ms']!);

  const [webhookRtt, redisRtt] = [await webhookRoundTrips(ctx.webhookUrl), await redisRoundTrips(ctx.parley)];
  const redisCommands = await traceOneAudioTurn(ctx, options);

  const rows: TurnRow[] = [
    {
      measure: 'audio turn: end-of-speech decision → first audio frame out (end_to_end_ms)',
      where: 'parley',
      summary: summarize(t(audio, 'end_to_end_ms')),
    },
    { measure: '  ├ STT call, instant provider (stt_ms)', where: 'parley', summary: summarize(t(audio, 'stt_ms')) },
    {
      measure: '  ├ transcript event + user message write (remainder)',
      where: 'parley',
      summary: summarize(rest(audio)),
    },
    {
      measure: '  │  └ of which the awaited user message write (appendMessage: HGET + EVALSHA)',
      where: 'parley',
      summary: summarize(userWrites),
    },
    { measure: '  ├ webhook call (response_ms)', where: 'parley', summary: summarize(t(audio, 'response_ms')) },
    {
      measure: '  └ TTS, instant provider → first frame out (first_audio_ms)',
      where: 'parley',
      summary: summarize(t(audio, 'first_audio_ms')),
    },
    { measure: textMeasure, where: 'parley', summary: summarize(t(text, 'end_to_end_ms')) },
    {
      measure: '  └ of which the webhook call (response_ms)',
      where: 'parley',
      summary: summarize(t(text, 'response_ms')),
    },
    {
      measure: clientAudioMeasure,
      where: 'client',
      summary: summarize(clientAudio.map((s) => s.send_to_audio_start_ms)),
    },
    {
      measure: clientTranscriptMeasure,
      where: 'client',
      summary: summarize(clientAudio.map((s) => s.send_to_transcript_ms ?? Number.NaN)),
    },
    {
      measure: clientTextMeasure,
      where: 'client',
      summary: summarize(clientText.map((s) => s.send_to_audio_start_ms)),
    },
    {
      measure: "webhook round trip alone (Parley's callWebhook, same webhook)",
      where: 'reference',
      summary: summarize(webhookRtt),
    },
    { measure: 'Redis PING round trip (Parley’s client)', where: 'reference', summary: summarize(redisRtt) },
  ];
  const e2e = rows[0]!.summary;
  return {
    measured_turns: options.turns,
    warmup_turns: options.warmupTurns,
    speed_x: options.turnSpeed,
    target_p50_ms: targetP50Ms,
    within_target: e2e.p50_ms < targetP50Ms,
    rows: rows.map((r) => ({ ...r, summary: rounded(r.summary) })),
    audio_path_added_p50_ms: round(row(rows, clientAudioMeasure).p50_ms - row(rows, clientTextMeasure).p50_ms, 3),
    interrupted_turns: result.samples.filter((s) => s.interrupted).length,
    redis_commands_per_audio_turn: redisCommands,
  };
}

async function webhookRoundTrips(webhookUrl: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < 60; i++) {
    const t0 = performance.now();
    const result = await callWebhook(
      { url: webhookUrl, apiKey: null, timeoutMs: 5_000 },
      { sessionId: 'ses_bench', transcript: instantTranscript, userId: null, context: null },
    );
    if (!result.ok) throw new Error(`webhook reference call failed: ${result.message}`);
    if (i >= 10) out.push(performance.now() - t0);
  }
  return out;
}

async function redisRoundTrips(parley: Parley): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < 60; i++) {
    const t0 = performance.now();
    await parley.redis.ping();
    if (i >= 10) out.push(performance.now() - t0);
  }
  return out;
}

/** One audio turn from this process under Redis MONITOR (not timed: MONITOR slows Redis). */
async function traceOneAudioTurn(ctx: TurnContext, options: VoiceBenchOptions): Promise<string[]> {
  const grant = await openSession(ctx.url, ctx.agentToken);
  const client = await VoiceClient.connect(grant.connection_url, grant.connection_token);
  try {
    await client.untilEvent('ready');
    const clip = await loadVoiceBenchClip();
    const commands = await traceRedis(
      ctx.redisUrl,
      async () => {
        await client.stream(clip, { frameMs: options.frameMs, speed: options.turnSpeed });
        await client.untilEvent('response');
        await sleep(200); // the writes after the answer (turn count, agent stats)
      },
      /bull/,
    );
    return commands.map((c) => c.command);
  } finally {
    client.sendJson({ type: 'end' });
    await client.untilClosed(5_000).catch(() => client.ws.terminate());
  }
}

// ---- (b) capacity ----

interface LoadContext {
  url: string;
  agentToken: string;
  parley: Parley;
  clients: VoiceClientProcess;
  probes: Probes;
  triggers: number[];
  unloadedP50: number;
  cpu: { redis: () => number; webhook: () => number; clients: () => number };
}

async function measureLoad(options: VoiceBenchOptions, ctx: LoadContext): Promise<LoadReport> {
  const idle = await idleParley(3_000);
  const started = performance.now();
  const rows: LoadRow[] = [];
  let best: number | null = null;
  let stopped = `ramp finished at ${options.sessions.at(-1)} sessions`;
  const stepMs = (n: number) => options.staggerMs + options.streamMs + options.graceMs + 1_000 + n * 15;
  const fits = (n: number) => performance.now() - started + stepMs(n) <= options.loadBudgetMs;
  for (const n of options.sessions) {
    if (!fits(n)) {
      stopped = `time budget (${options.loadBudgetMs / 1000} s) would be passed by the ${n}-session step`;
      break;
    }
    const step = async (attempt: number) => {
      const row = await loadStep(n, attempt, options, ctx, idle.cpu_ms_per_s);
      rows.push(row);
      console.log(
        `  ${n} sessions${attempt > 1 ? ' (repeat)' : ''}: frame lag p99 ${row.frame_lag_ms.p99_ms} ms, transcript lag p99 ${row.transcript_lag_p99_ms} ms, ` +
          `Parley ${row.cores.parley} cores (loop thread ${row.cores.parley_main}), clients ${row.cores.clients} cores`,
      );
      return row;
    };
    let row = await step(1);
    if (!row.within_limit && fits(n)) row = await step(2); // machine noise can fake a miss: confirm it
    if (!row.within_limit) {
      stopped =
        `p99 frame lag passed ${options.lagLimitMs} ms at ${n} sessions` + (row.attempt === 2 ? ' (twice)' : '');
      break;
    }
    best = n;
  }
  return {
    frame_ms: options.frameMs,
    stream_ms: options.streamMs,
    stagger_ms: options.staggerMs,
    lag_limit_ms: options.lagLimitMs,
    unloaded_transcript_p50_ms: round(ctx.unloadedP50, 3),
    idle,
    rows,
    max_sessions_within_limit: best,
    stopped_because: stopped,
    cpu_ceiling: cpuCeiling(rows),
  };
}

function cpuCeiling(rows: LoadRow[]): LoadReport['cpu_ceiling'] {
  const last = rows.at(-1);
  if (last === undefined || !(last.parley_cpu_ms_per_session_s.main > 0) || !(last.parley_cpu_ms_per_session_s.all > 0))
    return null;
  return {
    from_sessions: last.sessions,
    event_loop_thread_full_at: Math.floor(1000 / last.parley_cpu_ms_per_session_s.main),
    two_cores_full_at: Math.floor(2000 / last.parley_cpu_ms_per_session_s.all),
  };
}

async function idleParley(ms: number): Promise<LoadReport['idle']> {
  const h = monitorEventLoopDelay({ resolution: loopResolutionMs });
  const before = { at: performance.now(), all: process.cpuUsage(), main: threadCpuMs(process.pid) };
  h.enable();
  await sleep(ms);
  h.disable();
  const wallS = (performance.now() - before.at) / 1000;
  const all = process.cpuUsage(before.all);
  return {
    frame_lag_ms: loopPercentiles(h),
    cpu_ms_per_s: {
      all: round((all.user + all.system) / 1000 / wallS, 2),
      main: round((threadCpuMs(process.pid) - before.main) / wallS, 2),
    },
  };
}

function loopPercentiles(h: ReturnType<typeof monitorEventLoopDelay>): Percentiles {
  const ms = (ns: number) => round(Math.max(0, ns / 1e6 - loopResolutionMs), 2);
  return { p50_ms: ms(h.percentile(50)), p99_ms: ms(h.percentile(99)), max_ms: ms(h.max) };
}

async function loadStep(
  n: number,
  attempt: number,
  options: VoiceBenchOptions,
  ctx: LoadContext,
  idleCpu: { all: number; main: number },
): Promise<LoadRow> {
  const grants: SessionGrant[] = [];
  for (let i = 0; i < n; i += 32) {
    grants.push(
      ...(await Promise.all(Array.from({ length: Math.min(32, n - i) }, () => openSession(ctx.url, ctx.agentToken)))),
    );
  }
  ctx.clients.send({
    job: 'load',
    sessions: grants,
    frameMs: options.frameMs,
    durationMs: options.streamMs,
    staggerMs: options.staggerMs,
    triggerFrames: ctx.triggers,
    graceMs: options.graceMs,
  });
  const connected = await ctx.clients.next();
  if (!('connected' in connected)) throw new Error(`voice clients answered ${JSON.stringify(connected).slice(0, 200)}`);

  const loop = monitorEventLoopDelay({ resolution: loopResolutionMs });
  const before = {
    at: performance.now(),
    parley: process.cpuUsage(),
    main: threadCpuMs(process.pid),
    redis: ctx.cpu.redis(),
    webhook: ctx.cpu.webhook(),
    clients: ctx.cpu.clients(),
  };
  loop.enable();
  ctx.probes.vadWindows.take();
  ctx.probes.vadWindows.recording = true;
  const result = await ctx.clients.ask(
    { go: true },
    (m: ChildMessage): m is LoadResult => 'job' in m && m.job === 'load',
  );
  ctx.probes.vadWindows.recording = false;
  loop.disable();
  const wall = performance.now() - before.at;
  const parleyCpu = process.cpuUsage(before.parley);
  const parleyMs = (parleyCpu.user + parleyCpu.system) / 1000;
  const mainMs = threadCpuMs(process.pid) - before.main;
  const cores = (ms: number) => round(ms / wall, 2);
  const windows = summarize(ctx.probes.vadWindows.take());
  const sessionSeconds = (n * options.streamMs) / 1000;
  const perSession = (ms: number, idlePerS: number) =>
    round(Math.max(0, ms - (idlePerS * wall) / 1000) / sessionSeconds, 2);

  await ctx.clients.ask({ close: true }, (m: ChildMessage): m is { closed: number } => 'closed' in m);
  const deadline = performance.now() + 10_000;
  while (ctx.parley.services.supervisor.size > 0 && performance.now() < deadline) await sleep(20);

  const transcripts = summarize(result.transcript_latencies_ms);
  const frameLag = loopPercentiles(loop);
  return {
    sessions: n,
    attempt,
    utterances: transcripts.count,
    missing_transcripts: result.missing_transcripts,
    frame_lag_ms: frameLag,
    transcript_ms: {
      p50_ms: round(transcripts.p50_ms, 2),
      p99_ms: round(transcripts.p99_ms, 2),
      max_ms: round(transcripts.max_ms, 2),
    },
    transcript_lag_p99_ms: round(transcripts.p99_ms - ctx.unloadedP50, 2),
    vad_window_ms: {
      p50_ms: round(windows.p50_ms, 3),
      p99_ms: round(windows.p99_ms, 3),
      max_ms: round(windows.max_ms, 3),
    },
    parley_cpu_ms_per_session_s: { all: perSession(parleyMs, idleCpu.all), main: perSession(mainMs, idleCpu.main) },
    cores: {
      parley: cores(parleyMs),
      parley_main: cores(mainMs),
      clients: cores(ctx.cpu.clients() - before.clients),
      redis: cores(ctx.cpu.redis() - before.redis),
      webhook: cores(ctx.cpu.webhook() - before.webhook),
    },
    client_send_late_p99_ms: round(result.send_lateness_ms.p99, 2),
    client_loop_delay_p99_ms: round(result.client_loop_delay_ms.p99, 2),
    responses: result.responses,
    errors: [...new Set(result.errors)].slice(0, 5),
    within_limit: transcripts.count > 0 && result.missing_transcripts === 0 && frameLag.p99_ms <= options.lagLimitMs,
  };
}

// ---- HTTP helpers ----

async function admin(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(url + path, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': adminKey },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as unknown;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function createAgent(url: string, webhookUrl: string): Promise<string> {
  const agent = (await admin(url, 'POST', '/admin/v1/agents', {
    name: 'Bench voice agent',
    mode: 'passthrough',
    webhook_url: webhookUrl,
    vad_threshold: vadSettings.threshold,
    min_silence_ms: vadSettings.minSilenceMs,
    prefix_padding_ms: vadSettings.prefixPaddingMs,
    max_utterance_ms: vadSettings.maxUtteranceMs,
  })) as { agent_token: string };
  return agent.agent_token;
}

async function openSession(url: string, agentToken: string): Promise<SessionGrant & { session_id: string }> {
  const res = await fetch(`${url}/sdk/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent_token: agentToken, transport: 'websocket' }),
  });
  const body = (await res.json()) as SessionGrant & { session_id: string };
  if (res.status !== 201) throw new Error(`POST /sdk/v1/session: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

// ---- report ----

function rounded(s: LatencySummary): LatencySummary {
  return {
    count: s.count,
    mean_ms: round(s.mean_ms, 3),
    p50_ms: round(s.p50_ms, 3),
    p90_ms: round(s.p90_ms, 3),
    p99_ms: round(s.p99_ms, 3),
    max_ms: round(s.max_ms, 3),
  };
}

function renderMarkdown(report: VoiceReport): string {
  const a = report.turn_latency;
  const b = report.load;
  const m = report.machine;
  const f = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : '–');
  const turnTable = markdownTable(
    ['measure', 'by', 'turns', 'p50 ms', 'p99 ms', 'mean ms', 'max ms'],
    a.rows.map((r) => [
      r.measure,
      r.where,
      r.summary.count,
      f(r.summary.p50_ms),
      f(r.summary.p99_ms),
      f(r.summary.mean_ms),
      f(r.summary.max_ms),
    ]),
    ['left', 'left', 'right', 'right', 'right', 'right', 'right'],
  );
  const loadHeader = [
    'sessions',
    'try',
    'utterances',
    'frame lag p50 ms',
    'frame lag p99 ms',
    'transcript p99 ms',
    'transcript lag p99 ms',
    'VAD window p99 ms',
    'Parley cores (loop thread)',
    'Parley CPU ms per session-s (loop thread)',
    'client cores',
    'client send late p99 ms',
    'client loop delay p99 ms',
    `p99 lag ≤ ${b.lag_limit_ms} ms`,
  ];
  const loadTable = markdownTable(
    loadHeader,
    b.rows.map((r) => [
      r.sessions,
      r.attempt,
      r.missing_transcripts > 0 ? `${r.utterances} (+${r.missing_transcripts} missing)` : r.utterances,
      f(r.frame_lag_ms.p50_ms),
      f(r.frame_lag_ms.p99_ms),
      f(r.transcript_ms.p99_ms),
      f(r.transcript_lag_p99_ms),
      f(r.vad_window_ms.p99_ms),
      `${f(r.cores.parley)} (${f(r.cores.parley_main)})`,
      `${f(r.parley_cpu_ms_per_session_s.all)} (${f(r.parley_cpu_ms_per_session_s.main)})`,
      f(r.cores.clients),
      f(r.client_send_late_p99_ms),
      f(r.client_loop_delay_p99_ms),
      r.within_limit ? 'yes' : 'NO',
    ]),
    loadHeader.map((_, i): Align => (i === loadHeader.length - 1 ? 'left' : 'right')),
  );
  const ceiling = b.cpu_ceiling;
  const e2e = a.rows[0]!.summary;
  const text = row(a.rows, textMeasure);
  return [
    '# Voice pipeline (WebSocket transport, instant STT and TTS)',
    '',
    `## (a) Parley-added latency per turn: ${f(e2e.p50_ms)} ms p50, ${f(e2e.p99_ms)} ms p99 (target p50 < ${a.target_p50_ms} ms: ${a.within_target ? 'met' : 'NOT met'})`,
    '',
    turnTable,
    '',
    `One session, ${a.measured_turns} audio turns after ${a.warmup_turns} thrown away, each followed by a text turn (the baseline: the same machine, responder and playout path, without frames, VAD or STT). ` +
      `Audio: ${report.clip} at ${a.speed_x}× real time up to the 20 ms frame that completes the VAD's end-of-speech decision (found by running the same frames through the same VAD beforehand), 1× from there until the answer. ` +
      `"parley" rows are the agent messages' own timings (GET /admin/v1/conversations/:id): from the reply actor starting right after SPEECH_END (or TEXT) to the first audio frame handed to the WebSocket. ` +
      `"client" rows include two loopback WebSocket hops and the VAD's last window. With ${a.measured_turns} turns p99 is the largest sample (nearest rank). ` +
      `Audio path (frames + VAD + SPEECH_END) adds ${f(a.audio_path_added_p50_ms)} ms at p50 over the text turn (client audio − client text); in Parley, audio − text = ${f(e2e.p50_ms - text.p50_ms)} ms p50.` +
      (a.interrupted_turns > 0 ? ` ${a.interrupted_turns} turns saw an \`interrupted\` event (not clean).` : ''),
    `Redis commands during one audio turn (MONITOR): ${a.redis_commands_per_audio_turn.length} (${a.redis_commands_per_audio_turn.join(', ')}).`,
    '',
    `## (b) Concurrent sessions at real-time pace: ${b.max_sessions_within_limit ?? 'none'} within ${b.lag_limit_ms} ms p99 frame lag`,
    '',
    loadTable,
    '',
    `Each session streams ${report.clip} in a loop, ${b.frame_ms} ms frames at real-time pace for ${b.stream_ms / 1000} s, VAD on every frame; starts spread over ${b.stagger_ms / 1000} s. ` +
      `**Frame lag** = Parley's event-loop delay over the step (perf_hooks.monitorEventLoopDelay, ${loopResolutionMs} ms timer, period subtracted): how long an arriving frame or a VAD window waited before the server got to it. ` +
      `Every session's VAD runs on that one thread (onnxruntime-node 1.30 runs inference synchronously on the JS thread, in a setImmediate), so this is the lag every frame sees. ` +
      `The ramp stops at the first N whose p99 frame lag passes ${b.lag_limit_ms} ms twice in a row (a miss is repeated once: machine noise can fake one). Stopped: ${b.stopped_because}. ` +
      `Idle Parley (no session): frame lag p50 ${f(b.idle.frame_lag_ms.p50_ms)}, p99 ${f(b.idle.frame_lag_ms.p99_ms)}, max ${f(b.idle.frame_lag_ms.max_ms)} ms (the machine's noise floor), ${f(b.idle.cpu_ms_per_s.all)} ms CPU/s. ` +
      `Cross-check end to end: transcript = end-of-speech frame sent → \`transcript\` received (it can only come once every frame up to that one went through the VAD); transcript lag = its p99 − its unloaded median from (a) (${f(b.unloaded_transcript_p50_ms)} ms); few samples per step (${b.rows[0] === undefined ? '?' : Math.round(b.rows[0].utterances / b.rows[0].sessions)} utterances per session), so its p99 is the maximum at small N. ` +
      `VAD window = one 32 ms window in Parley, inference called → result. ` +
      `Cores = CPU time ÷ wall time over the step: Parley (all threads; in brackets its event-loop thread alone, from /proc), the clients' process (which sends and times every frame). CPU per session-second has Parley's idle CPU taken out. ` +
      `"client send late" = how far behind its real-time schedule the client sent frames (lag is timed from the actual send); "client loop delay" = how late the client itself stamped arrivals: when either is high the machine starved the client too, its frames reached Parley in bursts and the transcript column overstates Parley's part. ` +
      (ceiling === null
        ? ''
        : `CPU ceiling (a projection, not a measurement) from the per-session cost at ${ceiling.from_sessions} sessions: Parley's event-loop thread would be 100 % busy at ~${ceiling.event_loop_thread_full_at} sessions, two whole cores at ~${ceiling.two_cores_full_at} (clients and Redis elsewhere); p99 lag passes ${b.lag_limit_ms} ms before that.`),
    '',
    `Machine: ${m.cpu_count} × ${m.cpu_model}, Node ${m.node}, load ${m.load_avg_1m} at start and ${report.load_avg_1m_at_end} at end; ${report.started_at}. ` +
      'Other work shares this machine: numbers are noisy, p99s most of all.',
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const [flag, target] = process.argv.slice(2);
  if (flag === '--serve' && target === 'webhook') await serveWebhook();
  else await main();
}
