/**
 * A soak under faults (issue 29, item 5): N live voice sessions talk for several minutes while a
 * share of all provider, webhook and tool calls fail, each with a fault kind (404, 500, 429, hang,
 * reset, garbage, empty, cut, drip) and a moment picked at random, and the callers themselves
 * stay on, barge in or hang up at random. The baseline is the same run with no faults, in the
 * same process of this bench, on a fresh Parley. What must hold: every worker process stays up (0
 * restarts), every failed turn has an error record, and the memory the workers keep after a full
 * GC and their event-loop delay end where they end without faults.
 *
 * Parley runs as `npm start` runs it (src/main.ts, `PARLEY_WORKERS=2`) on a FaultUpstream
 * (test/support/fault-upstream.ts) standing in for the OpenAI-compatible STT/LLM/TTS, the webhook
 * and the tool, with the fault-injection tests' short timeouts (1.5 s; TTS 3 s).
 *
 *   node --import tsx bench/fault-soak.ts   # SOAK_SESSIONS=16 SOAK_SECONDS=180 SOAK_FAULT_SHARE=0.25 SOAK_SEED=29
 */
import { isMain } from './lib/is-main.js';
import { machineInfo, publishResults } from './lib/report.js';
import { runPhase, type PhaseResult } from './soak/soak-phase.js';
import { soakMarkdown } from './soak/soak-report.js';

const sessions = Number(process.env['SOAK_SESSIONS'] ?? 16);
const seconds = Number(process.env['SOAK_SECONDS'] ?? 180);
const faultShare = Number(process.env['SOAK_FAULT_SHARE'] ?? 0.25);
const seed = Number(process.env['SOAK_SEED'] ?? 29);

export interface SoakReport {
  bench: 'fault-soak';
  started_at: string;
  machine: ReturnType<typeof machineInfo>;
  seed: number;
  phases: PhaseResult[];
}

/** mulberry32: the same seed gives the same faults, moments and caller choices. */
function seeded(value: number): () => number {
  let a = value >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function runFaultSoak(): Promise<SoakReport> {
  const started_at = new Date().toISOString();
  const machine = machineInfo();
  const phases: PhaseResult[] = [];
  for (const [name, share] of [
    ['baseline', 0],
    ['faults', faultShare],
  ] as const) {
    console.log(`fault-soak: ${name}, ${sessions} sessions for ${seconds} s, fault share ${share}`);
    phases.push(await runPhase({ name, sessions, seconds, faultShare: share, random: seeded(seed) }));
  }
  return { bench: 'fault-soak', started_at, machine, seed, phases };
}

if (isMain(import.meta.url)) {
  const report = await runFaultSoak();
  await publishResults('fault-soak', report, soakMarkdown(report));
  const harmed = report.phases.some(
    (p) =>
      p.server_exited ||
      p.restarts > 0 ||
      p.crash_log_lines.length > 0 ||
      !p.same_worker_pids ||
      p.failed_turns_without_record !== 0,
  );
  if (harmed) {
    console.error('fault-soak: a worker restarted, crashed, or a failed turn has no record');
    process.exit(1);
  }
}
