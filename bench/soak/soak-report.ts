import type { SoakReport } from '../fault-soak.js';
import type { ProcessMemory } from '../lib/inspector-memory.js';
import { markdownTable, round } from '../lib/report.js';
import type { PhaseResult } from './soak-phase.js';

const mb = (bytes: number) => round(bytes / 2 ** 20, 1);
const sum = (list: ProcessMemory[], pick: (m: ProcessMemory) => number) => list.reduce((n, m) => n + pick(m), 0);

/** Before → after, for the two workers together. */
function memory(p: PhaseResult, pick: (m: ProcessMemory) => number): string {
  return `${mb(sum(p.memory_before, pick))} → ${mb(sum(p.memory_after, pick))}`;
}

export function soakMarkdown(report: SoakReport): string {
  const { phases, machine } = report;
  const rows = (label: string, value: (p: PhaseResult) => string | number): (string | number)[] => [
    label,
    ...phases.map(value),
  ];
  const table = markdownTable(
    ['', ...phases.map((p) => `${p.phase} (fault share ${p.fault_share})`)],
    [
      rows('sessions × seconds', (p) => `${p.sessions} × ${p.seconds}`),
      rows('turns answered', (p) => p.turns.answered),
      rows('turns failed (`turn_failed`)', (p) => p.turns.failed),
      rows('turns silent / call dropped', (p) => `${p.turns.silent} / ${p.turns.closed}`),
      rows('barge-ins / hang-ups by the caller', (p) => `${p.turns.interrupted} / ${p.turns.hung_up}`),
      rows(
        'upstream calls / faulted',
        (p) => `${p.upstream_calls} / ${Object.values(p.faulted_calls).reduce((a, b) => a + b, 0)}`,
      ),
      rows(
        'error records',
        (p) =>
          Object.entries(p.records)
            .map(([type, n]) => `${type} ${n}`)
            .join(', ') || 'none',
      ),
      rows('sessions with a failed turn without record', (p) => p.failed_turns_without_record),
      rows('hang-ups not ended `client_hangup`', (p) => p.hang_ups_ended_otherwise.length),
      rows('calls that could not be opened', (p) => p.turns.open_failures),
      rows(
        'worker restarts / crash log lines',
        (p) =>
          `${p.restarts} / ${p.crash_log_lines.length}${p.server_exited ? ' (the server gave up and exited)' : ''}`,
      ),
      rows('heap after GC, MB (2 workers, before → after)', (p) => memory(p, (m) => m.heap_used)),
      rows('external after GC, MB', (p) => memory(p, (m) => m.external)),
      rows('RSS, MB', (p) => memory(p, (m) => m.rss)),
      rows(
        'loop delay p99 ms (warm-up, first min, last min, idle)',
        (p) =>
          `${p.loop_lag_p99_ms.warmup}, ${p.loop_lag_p99_ms.first_minute}, ${p.loop_lag_p99_ms.last_minute}, ${p.loop_lag_p99_ms.idle_after}`,
      ),
    ],
    ['left', ...phases.map(() => 'right' as const)],
  );
  const faults = phases.find((p) => p.phase === 'faults');
  const kinds =
    faults === undefined
      ? ''
      : `\n\nFaulted calls by kind: ${Object.entries(faults.faulted_calls)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ')}.`;
  return `# Soak under faults\n\n${machine.cpu_count} × ${machine.cpu_model}, ${machine.node}, load ${machine.load_avg_1m} at the start; seed ${report.seed}.\n\n${table}${kinds}\n`;
}
