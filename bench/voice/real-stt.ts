/**
 * bench/voice (c): the real recogniser. Sessions speaking a conversation of whole questions at
 * real-time pace (bench/voice/talk-clip.ts), at each count once with the instant STT stand-in and
 * once with pocketsphinx (decoding while the user speaks), in the same Parley: what the user waits
 * (end of speech → first audio), Parley's share, the recogniser's own delay after each segment,
 * frame lag and CPU, and the largest count where pocketsphinx still keeps up.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Parley } from '../../src/parley.js';
import { wordErrorRate } from '../../test/support/wer.js';
import { summarize } from '../lib/percentiles.js';
import { round } from '../lib/report.js';
import { idleCpuMsPerS, threadCpuMs } from '../lib/cpu-time.js';
import type { VoiceClientProcess } from '../lib/voice-client-process.js';
import type { ChildMessage, TalkResult } from '../lib/voice-load-protocol.js';
import { warmDecoders } from '../stt/engines.js';
import { createBenchAgent, openSessions, timingsOf } from '../lib/bench-api.js';
import { loopResolutionMs, type VoiceBenchOptions } from './options.js';
import type { RealSttReport, SttEngine, TalkRow } from './real-stt-report.js';
import type { CountingStt } from './real-stt-speech.js';
import type { Percentiles } from './report.js';
import { writeTalkClip, type TalkClip } from './talk-clip.js';

export interface RealSttContext {
  url: string;
  webhookUrl: string;
  parley: Parley;
  clients: VoiceClientProcess;
  stt: CountingStt;
  cpu: { clients: () => number };
}

/**
 * A transcript ready this long after the segment end (p99) adds nothing to what the user waits
 * for a recognised question: smart endpointing ends the segment at `transcription_silence_ms` (64)
 * and confirms a whole question at `endpointing_punctuation_ms` (300) from the end of speech.
 */
const readyBudgetMs = 300 - 64;
const staggerMs = 5_000;
const graceMs = 4_000;

export async function measureRealStt(options: VoiceBenchOptions, ctx: RealSttContext): Promise<RealSttReport> {
  const clip = writeTalkClip(options.frameMs);
  try {
    const agents: Record<SttEngine, string> = {
      instant: await agentOn('instant', ctx.url, ctx.webhookUrl),
      pocketsphinx: await agentOn('pocketsphinx', ctx.url, ctx.webhookUrl),
    };
    const { decoders, threads } = ctx.stt.inner.options;
    await warmDecoders(ctx.stt.inner, decoders, clip.firstQuestion);
    const idle = await idleCpuMsPerS(3_000);
    const rows: TalkRow[] = [];
    let capacity: number | null = null;
    let stopped = `ramp finished at ${options.sttSessions.at(-1)} sessions`;
    for (const n of options.sttSessions) {
      for (const stt of ['instant', 'pocketsphinx'] as const) {
        const row = await talkStep(n, stt, agents[stt], clip, options, ctx, idle);
        if (row.recogniser !== null) {
          row.keeps_up =
            row.unanswered === 0 &&
            row.frame_lag_ms.p99_ms <= options.lagLimitMs &&
            row.recogniser.ready_ms.p99_ms <= readyBudgetMs;
        }
        rows.push(row);
        console.log(
          `  ${stt} × ${n}: wait p50/p99 ${row.user_wait_ms.p50_ms}/${row.user_wait_ms.p99_ms} ms, ` +
            `transcript after segment end p99 ${row.recogniser?.finish_ms.p99_ms ?? '–'} ms, fallbacks ${row.recogniser?.whole ?? '–'}, ` +
            `frame lag p99 ${row.frame_lag_ms.p99_ms} ms, Parley ${row.cores.parley} cores, unanswered ${row.unanswered}`,
        );
      }
      const last = rows.at(-1)!;
      if (last.keeps_up === false) {
        stopped = `pocketsphinx stopped keeping up at ${n} sessions`;
        break;
      }
      capacity = n;
    }
    return {
      clip: {
        questions: clip.questions,
        duration_s: round(clip.durationMs / 1000, 1),
        speech_share: round(clip.speechMs / clip.durationMs, 2),
        stagger_s: staggerMs / 1000,
      },
      decoders,
      threads,
      ready_budget_ms: readyBudgetMs,
      idle_cpu_ms_per_s: round(idle, 1),
      lag_limit_ms: options.lagLimitMs,
      rows,
      capacity_sessions: capacity,
      stopped_because: stopped,
    };
  } finally {
    clip.remove();
  }
}

/** A passthrough agent answered by the bench's webhook, on the stand-in preset or on pocketsphinx; its token. */
async function agentOn(stt: SttEngine, url: string, webhookUrl: string): Promise<string> {
  const pocketsphinx = {
    name: 'Bench pocketsphinx',
    stt: { provider: 'pocketsphinx', model: 'en-us', language: null },
  };
  const agent =
    stt === 'instant'
      ? await createBenchAgent(url, { name: 'Bench voice agent', webhook_url: webhookUrl })
      : await createBenchAgent(
          url,
          { name: 'Bench voice agent (pocketsphinx)', webhook_url: webhookUrl },
          pocketsphinx,
        );
  return agent.agent_token;
}

const pct = (values: number[]): Percentiles => {
  const s = summarize(values);
  return { p50_ms: round(s.p50_ms, 1), p99_ms: round(s.p99_ms, 1), max_ms: round(s.max_ms, 1) };
};

async function talkStep(
  n: number,
  stt: SttEngine,
  agentToken: string,
  clip: TalkClip,
  options: VoiceBenchOptions,
  ctx: RealSttContext,
  idleCpuMsPerS: number,
): Promise<TalkRow> {
  const grants = await openSessions(ctx.url, agentToken, n, 32);
  ctx.stt.take();
  const loop = monitorEventLoopDelay({ resolution: loopResolutionMs });
  const before = {
    at: performance.now(),
    cpu: process.cpuUsage(),
    main: threadCpuMs(process.pid),
    clients: ctx.cpu.clients(),
  };
  loop.enable();
  const result = await ctx.clients.ask(
    {
      job: 'talk',
      sessions: grants,
      frameMs: options.frameMs,
      clipPath: clip.path,
      speechEndFrames: clip.speechEndFrames,
      staggerMs,
      graceMs,
    },
    (m: ChildMessage): m is TalkResult => 'job' in m && m.job === 'talk',
  );
  loop.disable();
  const wall = performance.now() - before.at;
  const used = process.cpuUsage(before.cpu);
  const parleyMs = (used.user + used.system) / 1000;
  const use = ctx.stt.take();
  const deadline = performance.now() + 10_000;
  while (ctx.parley.services.supervisor.size > 0 && performance.now() < deadline) await sleep(20);

  const timings = await timingsOf(
    ctx.url,
    grants.map((g) => g.session_id),
    ['end_to_end_ms', 'endpointing_ms'],
  );
  const waits = result.waits_ms.flat();
  const said = clip.questions.join(' ');
  const lag = (ns: number) => round(Math.max(0, ns / 1e6 - loopResolutionMs), 2);
  return {
    stt,
    sessions: n,
    speaking_at_once: round((n * clip.speechMs) / clip.durationMs, 1),
    questions: waits.length,
    unanswered: waits.filter((w) => w === null).length,
    user_wait_ms: pct(waits.filter((w): w is number => w !== null)),
    end_to_end_ms: pct(timings.map((t) => t['end_to_end_ms']!)),
    endpointing_ms: pct(timings.map((t) => t['endpointing_ms'] ?? 0)),
    parley_share_ms: pct(
      timings.map(
        (t) => t['end_to_end_ms']! - (t['endpointing_ms'] ?? 0) - (t['stt_ms'] ?? 0) - (t['response_ms'] ?? 0),
      ),
    ),
    recogniser:
      stt === 'instant'
        ? null
        : {
            streams: use.streams,
            refused: use.refused,
            whole: use.whole,
            finish_ms: pct(use.finishMs),
            whole_ms: pct(use.wholeMs),
            ready_ms: pct([...use.finishMs, ...use.wholeMs]),
          },
    wer:
      stt === 'instant'
        ? null
        : round(wordErrorRate(result.transcripts.map((heard) => ({ said, heard: heard.join(' ') }))), 3),
    frame_lag_ms: { p50_ms: lag(loop.percentile(50)), p99_ms: lag(loop.percentile(99)), max_ms: lag(loop.max) },
    cores: {
      parley: round(parleyMs / wall, 2),
      parley_main: round((threadCpuMs(process.pid) - before.main) / wall, 2),
      clients: round((ctx.cpu.clients() - before.clients) / wall, 2),
    },
    parley_cpu_ms_per_session_s: round(
      Math.max(0, parleyMs - (idleCpuMsPerS * wall) / 1000) / ((n * clip.durationMs) / 1000),
      1,
    ),
    client_send_late_p99_ms: round(result.send_lateness_ms.p99, 2),
    errors: [...new Set(result.errors)].slice(0, 5),
    keeps_up: null,
  };
}
