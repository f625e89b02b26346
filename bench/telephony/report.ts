/** The telephony bench's JSON report and its markdown (bench/README.md's Telephony section). */
import type { LatencySummary } from '../lib/percentiles.js';
import { markdownTable, round, type MachineInfo } from '../lib/report.js';
import type { CodecCost } from './codec-cost.js';
import type { VadRateReport } from './vad-rate.js';

export interface TransportRow {
  transport: string;
  sessions: number;
  turns_answered: number;
  missed: number;
  session_seconds: number;
  parley_cpu_ms_per_session_s: number;
  client_cpu_ms_per_session_s: number;
  client_wait: LatencySummary;
  parley_end_to_end: LatencySummary;
  parley_share: LatencySummary;
}

export interface TelephonyReport {
  bench: 'telephony';
  started_at: string;
  machine: MachineInfo;
  load_avg_1m_at_end: number;
  options: Record<string, unknown>;
  transports: TransportRow[];
  codec: CodecCost[];
  vad_rate: VadRateReport;
}

const pair = (s: LatencySummary) => `${round(s.p50_ms)} / ${round(s.p99_ms)}`;

export function renderMarkdown(r: TelephonyReport): string {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? Number.NaN;
  const v = r.vad_rate;
  return [
    `Run ${r.started_at}: ${r.machine.cpu_model} × ${r.machine.cpu_count}, Node ${r.machine.node}, load average ${r.machine.load_avg_1m} at the start, ${r.load_avg_1m_at_end} at the end.`,
    '',
    markdownTable(
      [
        'transport',
        'sessions',
        'turns answered (missed)',
        'Parley CPU ms per session-s',
        'load generator CPU ms per session-s',
        'client: speech end → first audio p50 / p99 ms',
        'Parley end_to_end_ms p50 / p99',
        "Parley's share p50 / p99 ms",
      ],
      r.transports.map((t) => [
        t.transport,
        t.sessions,
        `${t.turns_answered} (${t.missed})`,
        round(t.parley_cpu_ms_per_session_s),
        round(t.client_cpu_ms_per_session_s),
        pair(t.client_wait),
        pair(t.parley_end_to_end),
        pair(t.parley_share),
      ]),
    ),
    '',
    markdownTable(
      ['conversion (20 ms frames, one thread)', 'CPU ms per audio-s'],
      r.codec.map((c) => [c.step, round(c.cpu_ms_per_audio_s, 3)]),
    ),
    '',
    markdownTable(
      ['Silero on phone audio (μ-law 8 kHz)', 'native 8 kHz', 'upsampled to 16 kHz (the pipeline)'],
      [
        [
          'CPU ms per audio-s, one stream',
          round(v.cpu_ms_per_audio_s.native_8k),
          round(v.cpu_ms_per_audio_s.upsampled_16k),
        ],
        [
          `8 kHz vs 16 kHz onset / end difference ms (${v.utterances} utterances, ${round(v.audio_s, 1)} s): median | max`,
          `${median(v.onset_diff_ms)} / ${median(v.end_diff_ms)}`,
          `${Math.max(...v.onset_diff_ms)} / ${Math.max(...v.end_diff_ms)}`,
        ],
        ['utterances whose onset and end agree within 32 ms', v.agree_within_32ms, v.utterances],
      ],
    ),
  ].join('\n');
}
