import type { LatencySummary } from '../lib/percentiles.js';
import { markdownTable, round, type Align, type MachineInfo } from '../lib/report.js';
import { loopResolutionMs, type VoiceBenchOptions } from './options.js';
import { renderRealStt, type RealSttReport } from './real-stt-report.js';

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

/** Row names shared by the measurement and the report. */
export const measures = {
  userPerceived: 'audio turn: user stopped speaking → first audio frame out (end_to_end_ms)',
  share: "  └ Parley's share (end_to_end − endpointing − STT − webhook)",
  textTurn: 'baseline: text turn: text received → first audio frame out (end_to_end_ms)',
  textShare: "  └ Parley's share (end_to_end − webhook)",
  clientAudio: 'client: speech-end frame sent → `audio_start` received (user-perceived)',
  clientTranscript: 'client: end-of-speech decision frame sent → `transcript` received',
  clientText: 'client baseline: text sent → `audio_start` received',
} as const;

export interface TurnLatencyReport {
  measured_turns: number;
  warmup_turns: number;
  speed_x: number;
  /** The agent's `min_silence_ms` (default settings): the silence the VAD waits for. */
  min_silence_ms: number;
  share_target_p50_ms: number;
  /** Parley's share p50 ≤ target. */
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
  /**
   * VAD batches run on the worker over the step: how many, the windows they held, and their mean
   * size; `skipped`: windows scored 0 under the silence floor without the model, `skipped_pct` their
   * share of all windows scored.
   */
  vad_batches: {
    batches: number;
    windows: number;
    skipped: number;
    skipped_pct: number;
    mean_batch: number;
    largest_so_far: number;
  };
  /** CPU time ÷ wall time over the step: cores each process used; `parley_main` is Parley's event-loop thread alone. */
  cores: { parley: number; parley_main: number; clients: number; redis: number; webhook: number };
  /**
   * Parley's memory per session with every session connected and idle (no audio yet), against
   * before they were opened, after a full GC: `live` = JS heap + external (the VAD rings), `rss` = resident set.
   */
  memory_per_idle_session_kb: { live: number; rss: number };
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
  /** The server's PARLEY_VAD_SILENCE_FLOOR_DBFS. */
  vad_silence_floor_dbfs: number | 'off';
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
  /** (c) the real recogniser beside the instant stand-in; null when skipped. */
  real_stt: RealSttReport | null;
}

export function rounded(s: LatencySummary): LatencySummary {
  return {
    count: s.count,
    mean_ms: round(s.mean_ms, 3),
    p50_ms: round(s.p50_ms, 3),
    p90_ms: round(s.p90_ms, 3),
    p99_ms: round(s.p99_ms, 3),
    max_ms: round(s.max_ms, 3),
  };
}

export function renderMarkdown(report: VoiceReport): string {
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
    'VAD batches (mean size)',
    'VAD windows skipped %',
    'KB per idle session (RSS)',
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
      `${r.vad_batches.batches} (${f(r.vad_batches.mean_batch)})`,
      r.vad_batches.skipped_pct.toFixed(1),
      `${f(r.memory_per_idle_session_kb.live)} (${f(r.memory_per_idle_session_kb.rss)})`,
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
  const floor = b.vad_silence_floor_dbfs === 'off' ? 'off: none skipped' : `${b.vad_silence_floor_dbfs} dBFS`;
  const user = row(a.rows, measures.userPerceived);
  const share = row(a.rows, measures.share);
  const text = row(a.rows, measures.textTurn);
  return [
    '# Voice pipeline (WebSocket transport, instant STT and TTS)',
    '',
    `## (a) Per turn: the user waits ${f(user.p50_ms)} ms p50 (text turn ${f(text.p50_ms)} ms); Parley's share ${f(share.p50_ms)} ms p50, ${f(share.p99_ms)} ms p99 (target p50 ≤ ${a.share_target_p50_ms} ms: ${a.within_target ? 'met' : 'NOT met'})`,
    '',
    turnTable,
    '',
    `One session of an agent with default settings (min_silence_ms ${a.min_silence_ms}), ${a.measured_turns} audio turns after ${a.warmup_turns} thrown away, each followed by a text turn (the baseline: the same machine, responder and playout path, without frames, VAD or STT). ` +
      `Audio: ${report.clip} at up to ${a.speed_x}× real time (within the server's 5 s real-time allowance) until the 20 ms frame where the speech ends (found by running the same frames through the same VAD beforehand), 1× from there until the answer, as a live microphone would. ` +
      `"parley" rows are the agent messages' own timings (GET /admin/v1/conversations/:id): end_to_end_ms runs from the end of the user's speech (as that audio arrived) to the first audio frame handed to the WebSocket; endpointing_ms is the VAD's silence wait, STT and TTS are instant stand-ins, the webhook answers at once; Parley's share is what is left. ` +
      `"client" rows include two loopback WebSocket hops. With ${a.measured_turns} turns p99 is the largest sample (nearest rank). ` +
      `Audio path (frames + VAD + endpointing) adds ${f(a.audio_path_added_p50_ms)} ms at p50 over the text turn (client audio − client text).` +
      (a.interrupted_turns > 0 ? ` ${a.interrupted_turns} turns saw an \`interrupted\` event (not clean).` : ''),
    `Redis commands during one audio turn (MONITOR): ${a.redis_commands_per_audio_turn.length} (${a.redis_commands_per_audio_turn.join(', ')}).`,
    '',
    `## (b) Concurrent sessions at real-time pace: ${b.max_sessions_within_limit ?? 'none'} within ${b.lag_limit_ms} ms p99 frame lag`,
    '',
    loadTable,
    '',
    `Each session streams ${report.clip} in a loop, ${b.frame_ms} ms frames at real-time pace for ${b.stream_ms / 1000} s, VAD on every frame; starts spread over ${b.stagger_ms / 1000} s. ` +
      `**Frame lag** = Parley's event-loop delay over the step (perf_hooks.monitorEventLoopDelay, ${loopResolutionMs} ms timer, period subtracted): how long an arriving frame or a VAD window waited before the server got to it. ` +
      `Every session's frames arrive on that one thread; the VAD's inference runs off it, every session's due windows batched on the VAD worker thread (src/pipeline/vad/vad-batcher.ts). ` +
      `The ramp stops at the first N whose p99 frame lag passes ${b.lag_limit_ms} ms twice in a row (a miss is repeated once: machine noise can fake one). Stopped: ${b.stopped_because}. ` +
      `Idle Parley (no session): frame lag p50 ${f(b.idle.frame_lag_ms.p50_ms)}, p99 ${f(b.idle.frame_lag_ms.p99_ms)}, max ${f(b.idle.frame_lag_ms.max_ms)} ms (the machine's noise floor), ${f(b.idle.cpu_ms_per_s.all)} ms CPU/s. ` +
      `Cross-check end to end: transcript = end-of-speech frame sent → \`transcript\` received (it can only come once every frame up to that one went through the VAD); transcript lag = its p99 − its unloaded median from (a) (${f(b.unloaded_transcript_p50_ms)} ms); few samples per step (${b.rows[0] === undefined ? '?' : Math.round(b.rows[0].utterances / b.rows[0].sessions)} utterances per session), so its p99 is the maximum at small N. ` +
      `VAD batches = batches the VAD worker ran over the step and their mean size (windows per batch). ` +
      `VAD windows skipped = the share of windows scored without the model: outside an utterance, a window quieter than the silence floor (${floor}) is scored 0 at once on the event loop (Silero scores near-silence ~0 anyway). ` +
      `The clip's silence is digital zeros, so every silent window outside an utterance is skipped; a line with background noise above the floor would skip fewer and leave more to the worker. ` +
      `KB per idle session = Parley's JS heap + external memory (the VAD rings are array buffers) with the step's sessions connected and no audio yet, minus before they were opened, after a full GC, ÷ sessions; RSS delta in brackets (RSS does not shrink between steps, so it undercounts after a larger earlier step). ` +
      `Cores = CPU time ÷ wall time over the step: Parley (all threads; in brackets its event-loop thread alone, from /proc), the clients' process (which sends and times every frame). CPU per session-second has Parley's idle CPU taken out. ` +
      `"client send late" = how far behind its real-time schedule the client sent frames (lag is timed from the actual send); "client loop delay" = how late the client itself stamped arrivals: when either is high the machine starved the client too, its frames reached Parley in bursts and the transcript column overstates Parley's part. ` +
      (ceiling === null
        ? ''
        : `CPU ceiling (a projection, not a measurement) from the per-session cost at ${ceiling.from_sessions} sessions: Parley's event-loop thread would be 100 % busy at ~${ceiling.event_loop_thread_full_at} sessions, two whole cores at ~${ceiling.two_cores_full_at} (clients and Redis elsewhere); p99 lag passes ${b.lag_limit_ms} ms before that.`),
    '',
    ...(report.real_stt === null ? [] : [renderRealStt(report.real_stt), '']),
    `Machine: ${m.cpu_count} × ${m.cpu_model}, Node ${m.node}, load ${m.load_avg_1m} at start and ${report.load_avg_1m_at_end} at end; ${report.started_at}. ` +
      'Other work shares this machine: numbers are noisy, p99s most of all.',
  ].join('\n');
}

export function row(rows: TurnRow[], measure: string): LatencySummary {
  return rows.find((r) => r.measure === measure)!.summary;
}
