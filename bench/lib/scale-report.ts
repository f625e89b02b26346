/** bench/scale.ts's JSON report and its markdown (bench/README.md's Scale section). */
import { markdownTable, round, type MachineInfo } from './report.js';
import type { LoadRow, Pcts } from './scale-load.js';
import type { LossRow } from './scale-loss.js';

export interface ScaleReport {
  bench: 'scale';
  started_at: string;
  quick: boolean;
  machine: MachineInfo;
  load_avg_1m_at_end: number;
  options: Record<string, unknown>;
  load: LoadRow[];
  node_loss: LossRow[];
}

const pair = (s: Pcts) => `${round(s.p50_ms)} / ${round(s.p95_ms)}`;

/** The largest per-turn commands, e.g. `evalsha 4.1, hset 2.0`. */
function topCommands(byName: Record<string, number>, n = 6): string {
  return Object.entries(byName)
    .slice(0, n)
    .map(([name, x]) => `${name} ${round(x, 1)}`)
    .join(', ');
}

export function renderMarkdown(r: ScaleReport): string {
  const base = r.load.find((x) => x.nodes === 1);
  const ratio = (x: number, b: number | undefined) => (b === undefined || b === 0 ? '–' : round(x / b, 2));
  const loadTable = markdownTable(
    [
      'nodes',
      'sessions',
      'turns answered (missed)',
      'Redis commands per turn (ratio)',
      'sent by clients per turn',
      'Redis commands per session-s',
      'Redis idle commands/s (nodes alone)',
      'Redis CPU ms per session-s (ratio)',
      'Parley CPU ms per session-s (ratio)',
      "less the nodes' idle CPU (ratio)",
      'Parley idle CPU ms/s (nodes alone)',
      'load generator CPU ms per session-s',
      'user wait p50 / p95 ms',
      "Parley's share p50 / p95 ms",
    ],
    r.load.map((x) => [
      x.nodes,
      x.sessions,
      `${x.turns_answered} (${x.turns_missed})`,
      `${round(x.redis_commands_per_turn, 1)} (${ratio(x.redis_commands_per_turn, base?.redis_commands_per_turn)})`,
      round(x.client_commands_per_turn, 1),
      round(x.redis_commands_per_session_s, 1),
      round(x.redis_idle_commands_per_s, 1),
      `${round(x.redis_cpu_ms_per_session_s, 3)} (${ratio(x.redis_cpu_ms_per_session_s, base?.redis_cpu_ms_per_session_s)})`,
      `${round(x.parley_cpu_ms_per_session_s)} (${ratio(x.parley_cpu_ms_per_session_s, base?.parley_cpu_ms_per_session_s)})`,
      `${round(x.parley_session_cpu_ms_per_session_s)} (${ratio(x.parley_session_cpu_ms_per_session_s, base?.parley_session_cpu_ms_per_session_s)})`,
      round(x.parley_idle_cpu_ms_per_s, 1),
      round(x.client_cpu_ms_per_session_s),
      pair(x.user_wait),
      pair(x.parley_share),
    ]),
  );
  const commands = markdownTable(
    [
      'nodes',
      'executed per turn, by name (largest; calls inside scripts included)',
      'sent by clients per turn (MONITOR pass)',
      'idle, per second, by name (largest)',
    ],
    r.load.map((x) => [
      x.nodes,
      topCommands(x.redis_commands_per_turn_by_name),
      topCommands(x.client_commands_per_turn_by_name, 8),
      topCommands(Object.fromEntries(Object.entries(x.redis_idle_by_name).map(([k, v]) => [k, v / x.idle_window_s]))),
    ]),
  );
  const lossTable = markdownTable(
    [
      'leases',
      'TTL / sweep ms',
      'nodes',
      'sessions (on the killed node)',
      'kill → first / last session_end ms',
      'bound ms (TTL + sweep)',
      'earliest ms',
      'reason',
      'duplicates',
      'survivors cut',
      'survivors answered',
    ],
    r.node_loss.map((x) => [
      x.leases,
      `${x.lease_ttl_ms} / ${x.sweep_interval_ms}`,
      x.nodes,
      `${x.sessions} (${x.killed_sessions})`,
      `${x.first_end_ms} / ${x.last_end_ms}${x.ended_all ? '' : ' (not all ended)'}`,
      x.bound_ms,
      x.earliest_ms,
      x.reasons.join(', '),
      x.duplicate_ends,
      x.survivors_cut,
      x.survivors_answered,
    ]),
  );
  return [
    `Run ${r.started_at}${r.quick ? ' (quick)' : ''}: ${r.machine.cpu_model} × ${r.machine.cpu_count}, Node ${r.machine.node}, load average ${r.machine.load_avg_1m} at the start, ${r.load_avg_1m_at_end} at the end.`,
    '',
    loadTable,
    '',
    commands,
    '',
    lossTable,
  ].join('\n');
}
