/** bench/recording.ts's report: the phases, pooled per recording mode, against `off` (the baseline). */
import type { RecordingMode } from '../../src/schemas/recording-settings.js';
import { percentile } from './percentiles.js';
import { markdownTable, round, type MachineInfo } from './report.js';
import type { PhaseResult } from './recording-phase.js';

export interface ModeSummary {
  mode: RecordingMode;
  phases: number;
  session_s: number;
  parley_cpu_ms_per_session_s: number;
  /** Parley's CPU per session-second against `off`'s in the same run. */
  cpu_vs_off: number;
  /** Parley's CPU per session-second added by recording (this mode − `off`). */
  cpu_added_ms_per_session_s: number;
  client_cpu_ms_per_session_s: number;
  user_wait_ms: { p50: number; p95: number };
  parley_share_ms: { p50: number; p95: number };
  /** The worst phase's p99 frame lag (Parley's event-loop delay), and the worst single delay. */
  frame_lag_p99_ms: number;
  frame_lag_max_ms: number;
  unanswered: number;
  file_bytes_per_session_s: number;
  /** File bytes per second of audio in the files (the files also cover each session's wait before it spoke). */
  file_bytes_per_recorded_s: number;
  write_bytes_per_session_s: number;
}

export interface RecordingReport {
  bench: 'recording';
  started_at: string;
  machine: MachineInfo;
  load_avg_1m_at_end: number;
  options: Record<string, unknown>;
  clip: { questions: number; duration_s: number };
  idle_cpu_ms_per_s: number;
  modes: ModeSummary[];
  phases: Omit<PhaseResult, 'waits_ms' | 'shares_ms'>[];
}

const sorted = (values: number[]) => Float64Array.from(values).sort();
const p = (values: number[], q: number) => round(percentile(sorted(values), q), 1);

export function summarizeModes(phases: PhaseResult[]): ModeSummary[] {
  const modes = [...new Set(phases.map((x) => x.mode))];
  const base = (rows: PhaseResult[]) => {
    const sessionS = rows.reduce((t, r) => t + r.session_s, 0);
    return { sessionS, cpu: rows.reduce((t, r) => t + r.parley_cpu_ms, 0) / sessionS };
  };
  const offRows = phases.filter((x) => x.mode === 'off');
  const off = offRows.length > 0 ? base(offRows).cpu : Number.NaN;
  return modes.map((mode) => {
    const rows = phases.filter((x) => x.mode === mode);
    const { sessionS, cpu } = base(rows);
    const sum = (f: (r: PhaseResult) => number) => rows.reduce((t, r) => t + f(r), 0);
    const waits = rows.flatMap((r) => r.waits_ms);
    const shares = rows.flatMap((r) => r.shares_ms);
    return {
      mode,
      phases: rows.length,
      session_s: round(sessionS, 0),
      parley_cpu_ms_per_session_s: round(cpu, 2),
      cpu_vs_off: round(cpu / off, 2),
      cpu_added_ms_per_session_s: round(cpu - off, 2),
      client_cpu_ms_per_session_s: round(sum((r) => r.client_cpu_ms) / sessionS, 2),
      user_wait_ms: { p50: p(waits, 50), p95: p(waits, 95) },
      parley_share_ms: { p50: p(shares, 50), p95: p(shares, 95) },
      frame_lag_p99_ms: Math.max(...rows.map((r) => r.frame_lag_ms.p99)),
      frame_lag_max_ms: Math.max(...rows.map((r) => r.frame_lag_ms.max)),
      unanswered: sum((r) => r.unanswered),
      file_bytes_per_session_s: round(sum((r) => r.file_bytes) / sessionS, 0),
      file_bytes_per_recorded_s:
        sum((r) => r.recorded_s) === 0 ? 0 : round(sum((r) => r.file_bytes) / sum((r) => r.recorded_s), 0),
      write_bytes_per_session_s: round(sum((r) => r.write_bytes) / sessionS, 0),
    };
  });
}

const mb = (bytes: number) => round(bytes / 1e6, 2);

export function renderMarkdown(report: RecordingReport): string {
  const m = report.machine;
  const o = report.options;
  const lines = [
    '# Recording bench: live sessions with recording off, on and caller_only',
    '',
    `${report.started_at} · ${m.cpu_model} × ${m.cpu_count} · Node ${m.node} · load avg ${m.load_avg_1m} → ${report.load_avg_1m_at_end}`,
    '',
    `${String(o['sessions'])} WebSocket sessions per phase, each speaking the talk clip (${report.clip.questions} flite questions with pauses, ` +
      `${report.clip.duration_s} s) once at real-time pace, starts staggered over ${Number(o['staggerMs']) / 1000} s; ` +
      `instant STT/TTS stand-ins and a webhook answering at once, so Parley's share is what is measured. ` +
      `Phases in order: ${(o['order'] as string[]).join(', ')}. Per session-second = per second of audio the callers streamed. ` +
      `Parley's idle CPU (${report.idle_cpu_ms_per_s} ms/s) is taken out.`,
    '',
    markdownTable(
      [
        'recording',
        'phases',
        'session-s',
        'Parley CPU ms / session-s',
        '× off',
        'added ms / session-s',
        'user wait p50 / p95 ms',
        "Parley's share p50 / p95 ms",
        'frame lag p99 (worst phase) / max ms',
        'file bytes / session-s',
        'file bytes / recorded s',
        'write_bytes / session-s',
        'load gen CPU ms / session-s',
        'unanswered',
      ],
      report.modes.map((s) => [
        s.mode,
        s.phases,
        s.session_s,
        s.parley_cpu_ms_per_session_s,
        s.cpu_vs_off,
        s.cpu_added_ms_per_session_s,
        `${s.user_wait_ms.p50} / ${s.user_wait_ms.p95}`,
        `${s.parley_share_ms.p50} / ${s.parley_share_ms.p95}`,
        `${s.frame_lag_p99_ms} / ${s.frame_lag_max_ms}`,
        s.file_bytes_per_session_s,
        s.file_bytes_per_recorded_s,
        s.write_bytes_per_session_s,
        s.client_cpu_ms_per_session_s,
        s.unanswered,
      ]),
    ),
    '',
    '## Phases',
    '',
    markdownTable(
      [
        '#',
        'recording',
        'sessions',
        'wall s',
        'Parley cores',
        'CPU ms / session-s',
        'frame lag p50 / p99 / max ms',
        'files',
        'file MB',
        'recorded s',
        'write_bytes MB',
        'client send late p99 ms',
        'unanswered',
        'errors',
      ],
      report.phases.map((x, i) => [
        i + 1,
        x.mode,
        x.sessions,
        x.wall_s,
        x.parley_cores,
        round(x.parley_cpu_ms / x.session_s, 2),
        `${x.frame_lag_ms.p50} / ${x.frame_lag_ms.p99} / ${x.frame_lag_ms.max}`,
        x.files,
        mb(x.file_bytes),
        x.recorded_s,
        mb(x.write_bytes),
        x.client_send_late_p99_ms,
        x.unanswered,
        x.errors.join('; ') || '–',
      ]),
    ),
  ];
  return lines.join('\n');
}
