/**
 * What one job costs under @livekit/agents' AgentServer, which runs every job in a process of its
 * own (forked, initialized with the agent's prewarm: here the Silero VAD, as a voice agent does).
 * Starts an AgentServer (production mode, N idle job processes) against the fake LiveKit and
 * measures each warmed job process: resident memory, CPU spent starting, and time to ready.
 * Parley runs jobs in its own process instead; bench/livekit.ts measures what a session costs there.
 *
 *   node --import tsx bench/livekit-agents-proc.ts     # BENCH_AGENTS_PROCS (3)
 */
import { AgentServer, ServerOptions, initializeLogger } from '@livekit/agents';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../test/support/redis-server.js';
import { FakeLivekit } from '../test/support/fake-livekit/server.js';
import { processCpuMs } from './lib/cpu-time.js';
import { machineInfo, markdownTable, round, publishResults } from './lib/report.js';

const procs = Number(process.env['BENCH_AGENTS_PROCS'] ?? 3);

function children(): { pid: number; args: string }[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [pid, ...args] = line.trim().split(/\s+/);
      return { pid: Number(pid), args: args.join(' ') };
    });
}

function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

async function main(): Promise<void> {
  initializeLogger({ pretty: false, level: 'error' });
  // Job processes are forked with this process's execArgv: drop the TypeScript loader this bench
  // runs under, so they start as a plain-JavaScript agent would.
  process.execArgv = process.execArgv.filter((arg, i, all) => arg !== '--import' && all[i - 1] !== '--import');
  const fake = await FakeLivekit.start();
  const readyDir = mkdtempSync(join(tmpdir(), 'agents-ready-'));
  process.env['PARLEY_BENCH_READY_DIR'] = readyDir;
  const server = new AgentServer(
    new ServerOptions({
      agent: fileURLToPath(new URL('./lib/agents-entry.mjs', import.meta.url)),
      production: true,
      numIdleProcesses: procs,
      wsURL: fake.url,
      apiKey: fake.apiKey,
      apiSecret: fake.apiSecret,
      port: await freePort(),
      logLevel: 'error',
    }),
  );
  const t0 = performance.now();
  void server.run();
  try {
    while (readdirSync(readyDir).length < procs) {
      if (performance.now() - t0 > 60_000) throw new Error('job processes not ready within 60 s');
      await sleep(50);
    }
    const readyMs = performance.now() - t0;
    await sleep(500);
    const ready = new Set(readdirSync(readyDir).map(Number));
    const jobs = children().filter((c) => ready.has(c.pid));
    const rows = jobs.map((c) => ({
      pid: c.pid,
      rss_mb: round(rssMb(c.pid), 1),
      startup_cpu_ms: round(processCpuMs(c.pid), 0),
    }));
    const mean = (k: 'rss_mb' | 'startup_cpu_ms') => round(rows.reduce((n, r) => n + r[k], 0) / rows.length, 1);
    const machine = machineInfo();
    const markdown = [
      `# @livekit/agents AgentServer: cost of one job process (${machine.cpu_model}, load ${machine.load_avg_1m})`,
      '',
      markdownTable(
        ['job process', 'RSS MB', 'CPU ms to start (fork, imports, Silero prewarm)'],
        rows.map((r) => [r.pid, r.rss_mb, r.startup_cpu_ms]),
      ),
      '',
      `Mean per job process: ${mean('rss_mb')} MB resident, ${mean('startup_cpu_ms')} ms of CPU to start; ${procs} processes ready ${round(readyMs / 1000, 1)} s after start.`,
    ].join('\n');
    await publishResults(
      'livekit-agents-proc',
      {
        machine,
        procs,
        ready_ms: round(readyMs, 0),
        processes: rows,
        mean_rss_mb: mean('rss_mb'),
        mean_startup_cpu_ms: mean('startup_cpu_ms'),
      },
      markdown,
    );
  } finally {
    await Promise.race([server.close(), sleep(5_000)]);
    for (const c of children()) {
      try {
        process.kill(c.pid, 'SIGKILL');
      } catch {
        // it exited between the listing and the kill
      }
    }
    await fake.stop();
    rmSync(readyDir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
