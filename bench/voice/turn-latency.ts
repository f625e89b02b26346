import { setTimeout as sleep } from 'node:timers/promises';
import type { Parley } from '../../src/parley.js';
import { defaultIntakeLimits } from '../../src/pipeline/intake/limits.js';
import { callWebhook } from '../../src/respond/webhook.js';
import { VoiceClient } from '../../test/support/voice-client.js';
import type { CallTimer } from '../lib/call-timer.js';
import { instantTranscript } from '../lib/instant-speech.js';
import { summarize } from '../lib/percentiles.js';
import { traceRedis } from '../lib/redis-trace.js';
import { round } from '../lib/report.js';
import { loadVoiceBenchClip } from '../lib/voice-bench-audio.js';
import type { VoiceClientProcess } from '../lib/voice-client-process.js';
import type { ChildMessage, TurnsResult } from '../lib/voice-load-protocol.js';
import { conversationOf, openSession } from '../lib/bench-api.js';
import { targetShareP50Ms, vadSettings, type VoiceBenchOptions } from './options.js';
import { measures, row, rounded, type TurnLatencyReport, type TurnRow } from './report.js';
import type { Triggers } from './triggers.js';

export interface TurnContext {
  url: string;
  agentToken: string;
  webhookUrl: string;
  redisUrl: string;
  parley: Parley;
  clients: VoiceClientProcess;
  /** Times the user-message write on the turn path while recording. */
  userWrites: CallTimer;
  triggers: Triggers;
}

type Timings = Record<string, number>;

/**
 * (a) Turn latency: one session, an audio turn (fast up to the end of speech, real time from
 * there, as a microphone would) then a text turn, repeated. Parley's own timings per agent message
 * (the user-perceived end_to_end_ms and its parts), the client's view of the same, and the text
 * turn as the baseline: the same answer path without audio.
 */
export async function measureTurns(options: VoiceBenchOptions, ctx: TurnContext): Promise<TurnLatencyReport> {
  const grant = await openSession(ctx.url, ctx.agentToken);
  ctx.userWrites.recording = true;
  const result = await ctx.clients.ask(
    {
      job: 'turns',
      session: grant,
      audioTurns: options.warmupTurns + options.turns,
      speed: options.turnSpeed,
      allowanceMs: defaultIntakeLimits.burstMs - 1_000,
      frameMs: options.frameMs,
      triggerFrames: ctx.triggers.turns,
      spokenUntilFrames: ctx.triggers.spokenUntil,
      gapMs: options.turnGapMs,
      text: instantTranscript,
      timeoutMs: 20_000,
    },
    (m: ChildMessage): m is TurnsResult => 'job' in m && m.job === 'turns',
  );
  ctx.userWrites.recording = false;
  const userWrites = ctx.userWrites.take().slice(options.warmupTurns);
  const { messages } = await conversationOf(ctx.url, grant.session_id);
  const replies = messages.filter((m) => m.role === 'agent' && m.status === 'complete' && m.timings !== null);
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
  const t = (list: Timings[], key: string) => list.map((x) => x[key] ?? Number.NaN);
  const share = (x: Timings) =>
    x['end_to_end_ms']! - (x['endpointing_ms'] ?? 0) - (x['stt_ms'] ?? 0) - x['response_ms']!;

  const [webhookRtt, redisRtt] = [await webhookRoundTrips(ctx.webhookUrl), await redisRoundTrips(ctx.parley)];
  const redisCommands = await traceOneAudioTurn(ctx, options);

  const rows: TurnRow[] = [
    { measure: measures.userPerceived, where: 'parley', summary: summarize(t(audio, 'end_to_end_ms')) },
    {
      measure: '  ├ endpointing: VAD silence wait + decision (endpointing_ms)',
      where: 'parley',
      summary: summarize(t(audio, 'endpointing_ms')),
    },
    { measure: '  ├ STT call, instant provider (stt_ms)', where: 'parley', summary: summarize(t(audio, 'stt_ms')) },
    { measure: '  ├ webhook call (response_ms)', where: 'parley', summary: summarize(t(audio, 'response_ms')) },
    { measure: measures.share, where: 'parley', summary: summarize(audio.map(share)) },
    {
      measure: '     ├ of which TTS, instant provider → first frame out (first_audio_ms)',
      where: 'parley',
      summary: summarize(t(audio, 'first_audio_ms')),
    },
    {
      measure: '     └ of which the user message write, concurrent (HGET + EVALSHA)',
      where: 'parley',
      summary: summarize(userWrites),
    },
    { measure: measures.textTurn, where: 'parley', summary: summarize(t(text, 'end_to_end_ms')) },
    { measure: measures.textShare, where: 'parley', summary: summarize(text.map(share)) },
    {
      measure: measures.clientAudio,
      where: 'client',
      summary: summarize(clientAudio.map((s) => s.speech_end_to_audio_start_ms)),
    },
    {
      measure: measures.clientTranscript,
      where: 'client',
      summary: summarize(clientAudio.map((s) => s.send_to_transcript_ms ?? Number.NaN)),
    },
    {
      measure: measures.clientText,
      where: 'client',
      summary: summarize(clientText.map((s) => s.speech_end_to_audio_start_ms)),
    },
    {
      measure: "webhook round trip alone (Parley's callWebhook, same webhook)",
      where: 'reference',
      summary: summarize(webhookRtt),
    },
    { measure: 'Redis PING round trip (Parley’s client)', where: 'reference', summary: summarize(redisRtt) },
  ];
  return {
    measured_turns: options.turns,
    warmup_turns: options.warmupTurns,
    speed_x: options.turnSpeed,
    min_silence_ms: vadSettings.minSilenceMs,
    share_target_p50_ms: targetShareP50Ms,
    within_target: row(rows, measures.share).p50_ms <= targetShareP50Ms,
    rows: rows.map((r) => ({ ...r, summary: rounded(r.summary) })),
    audio_path_added_p50_ms: round(row(rows, measures.clientAudio).p50_ms - row(rows, measures.clientText).p50_ms, 3),
    interrupted_turns: result.samples.filter((s) => s.interrupted).length,
    redis_commands_per_audio_turn: redisCommands,
  };
}

async function webhookRoundTrips(webhookUrl: string): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < 60; i++) {
    const t0 = performance.now();
    // a failed call throws (WebhookFailed, with its message)
    for await (const part of callWebhook(
      { url: webhookUrl, apiKey: null, timeoutMs: 5_000 },
      { sessionId: 'ses_bench', transcript: instantTranscript, userId: null, context: null },
      { stallMs: 5_000 },
    ))
      void part;
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
        await client.untilEvent('audio_end');
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
