/** The streaming bench's JSON report and its markdown (bench/README.md's Streaming providers section). */
import { summarize, type LatencySummary } from '../lib/percentiles.js';
import { markdownTable, round, type MachineInfo } from '../lib/report.js';

/** One combination of providers. */
export interface RowSpec {
  row: string;
  stt: 'openai' | 'deepgram' | 'openai-realtime';
  tts: 'openai' | 'elevenlabs';
  webhook: 'json' | 'streamed';
}

/** What the sessions of one row showed, every round together (raw values; summarized by `summarizeRow`). */
export interface RowSamples {
  sessions: number;
  asked: number;
  session_seconds: number;
  parley_cpu_ms: number;
  bench_cpu_ms: number;
  /** Client: last speech frame sent → first audio frame received, per answered turn. */
  waits_ms: number[];
  audio_start_ms: number[];
  transcripts: number;
  transcripts_as_said: number;
  /** From the agent messages' timings. */
  endpointing_ms: number[];
  end_to_end_ms: number[];
  /** end_to_end_ms − endpointing_ms: the turn confirmed → its first audio frame sent. */
  confirmed_to_audio_ms: number[];
  /** The webhook's request received → the first piece Parley speaks written (JSON: the reply's end). */
  webhook_first_piece_ms: number[];
  /** confirmed_to_audio − webhook_first_piece − the TTS's first-byte delay. */
  parley_share_ms: number[];
  /** Turns whose agent message could not be paired with its webhook call (no share for them). */
  unpaired: number;
}

export interface RowReport extends RowSpec {
  sessions: number;
  asked: number;
  answered: number;
  transcripts: string;
  session_seconds: number;
  parley_cpu_ms_per_session_s: number;
  bench_cpu_ms_per_session_s: number;
  wait: LatencySummary;
  audio_start: LatencySummary;
  endpointing: LatencySummary;
  end_to_end: LatencySummary;
  confirmed_to_audio: LatencySummary;
  webhook_first_piece: LatencySummary;
  parley_share: LatencySummary;
  unpaired: number;
  /** Against the baseline row of the same run. */
  wait_p50_ratio: number;
  cpu_ratio: number;
}

export interface StreamingReport {
  bench: 'streaming';
  started_at: string;
  machine: MachineInfo;
  load_avg_1m_at_end: number;
  quick: boolean;
  options: { sessions: number; turns: number; rounds: number; gap_ms: number };
  timings: Record<string, unknown>;
  answer: string;
  questions: string[];
  batch_uploads_unrecognised: number;
  rows: RowReport[];
}

export function summarizeRow(spec: RowSpec, s: RowSamples, baseline: RowSamples): RowReport {
  const cpu = (x: RowSamples) => x.parley_cpu_ms / x.session_seconds;
  const wait = summarize(s.waits_ms);
  return {
    ...spec,
    sessions: s.sessions,
    asked: s.asked,
    answered: s.waits_ms.length,
    transcripts: `${s.transcripts_as_said} / ${s.transcripts}`,
    session_seconds: s.session_seconds,
    parley_cpu_ms_per_session_s: cpu(s),
    bench_cpu_ms_per_session_s: s.bench_cpu_ms / s.session_seconds,
    wait,
    audio_start: summarize(s.audio_start_ms),
    endpointing: summarize(s.endpointing_ms),
    end_to_end: summarize(s.end_to_end_ms),
    confirmed_to_audio: summarize(s.confirmed_to_audio_ms),
    webhook_first_piece: summarize(s.webhook_first_piece_ms),
    parley_share: summarize(s.parley_share_ms),
    unpaired: s.unpaired,
    wait_p50_ratio: wait.p50_ms / summarize(baseline.waits_ms).p50_ms,
    cpu_ratio: cpu(s) / cpu(baseline),
  };
}

const ms = (v: number) => (Number.isNaN(v) ? '—' : String(round(v, 0)));
const pair = (s: LatencySummary) => `${ms(s.p50_ms)} / ${ms(s.p90_ms)}`;

export function renderMarkdown(r: StreamingReport): string {
  const t = r.timings;
  const o = r.options;
  return [
    `## Streaming providers (${r.quick ? 'quick' : 'full'} run)`,
    '',
    `Run ${r.started_at}: ${r.machine.cpu_count}× ${r.machine.cpu_model}, Node ${r.machine.node}, load average ${r.machine.load_avg_1m} at the start, ${r.load_avg_1m_at_end} at the end. ` +
      `${o.sessions} sessions at once per row, ${o.turns} questions each (flite, real-time pace, the next ${o.gap_ms} ms after the answer played), ${o.rounds} round(s) of every row. ` +
      `Fakes: recognisers' final ${JSON.stringify(t['stt_ms'])} ms after the audio (batch: after the upload), TTS first audio ${String(t['tts_first_byte_ms'])} ms, the webhook's model ${String(t['webhook_tokens_per_s'])} tokens (words) a second, ${r.answer.split(/\s+/).length} words: "${r.answer}"`,
    '',
    markdownTable(
      [
        'row',
        'STT',
        'TTS',
        'webhook',
        'wait p50 / p90 ms',
        'wait p50 × baseline',
        'speech end → confirmed p50 / p90',
        'confirmed → first audio p50',
        "Parley's share p50 / p90 ms",
        'Parley CPU ms per session-s (× baseline)',
        'bench process (callers, fakes) CPU ms per session-s',
        'answered / asked',
        'transcripts as said',
      ],
      r.rows.map((x) => [
        x.row,
        x.stt,
        x.tts,
        x.webhook,
        pair(x.wait),
        round(x.wait_p50_ratio),
        pair(x.endpointing),
        ms(x.confirmed_to_audio.p50_ms),
        `${round(x.parley_share.p50_ms, 1)} / ${round(x.parley_share.p90_ms, 1)}`,
        `${round(x.parley_cpu_ms_per_session_s, 2)} (${round(x.cpu_ratio)})`,
        round(x.bench_cpu_ms_per_session_s, 2),
        `${x.answered} / ${x.asked}`,
        x.transcripts,
      ]),
    ),
    '',
    "Wait: the client sent the frame with the question's last speech → the answer's first audio frame arrived. " +
      'Speech end → confirmed is `endpointing_ms` (where the VAD placed the end of speech → the turn confirmed: the 300 ms wait after a `?`, or the transcript when it comes later); ' +
      "confirmed → first audio is `end_to_end_ms − endpointing_ms`. Parley's share is that minus the webhook's time to the first piece Parley speaks " +
      "(the first clause; a JSON reply: all of it, measured at the webhook) and minus the TTS's first-byte delay: Parley's own work plus the localhost hops and the fakes' timer slack on a loaded box. " +
      'The bench process (the callers and every fake) is measured separately from Parley (its own process, /proc).',
  ].join('\n');
}
