/**
 * Past one box (issue 23, item 6): the cost of sharing one Redis among Parley nodes, and the time
 * from losing a node to its sessions ended, in one run on this one machine.
 *
 * Load: one redis-server of the bench's own; N voice sessions over the WebSocket transport,
 * speaking at real-time pace (the voice bench's client process, `talk` job) to a passthrough agent
 * on the stand-in preset (instant STT/TTS, bench/lib/scale-node.ts) with a webhook in its own
 * process answering at once; on 1 node (the baseline), then 2, then 3, each node a real
 * src/main.ts process (PARLEY_WORKERS=1, its own port), the sessions opened round-robin across the
 * nodes. Per step: Redis commands per turn (INFO commandstats, which counts the commands run
 * inside Lua scripts too; and, in a separate pass under MONITOR, the commands clients sent), Redis CPU (INFO cpu) and Parley's
 * CPU (/proc, every node's processes) per session-second, the user's wait (the client's end of
 * speech → first audio) and Parley's share of it (its turn timings less endpointing and the
 * calls), the load generator's CPU, and the nodes' own Redis traffic with no session.
 *
 * Node loss: 3 nodes with live sessions, `kill -9` on one, and the time until every one of its
 * sessions' `session_end` reached the agent's events URL, against the reaper's bound, with the
 * default lease settings and with short ones.
 *
 *   node --import tsx bench/scale.ts      # or npm run bench -- scale; writes bench/results/scale.{json,md}
 *   SCALE_BENCH_QUICK=1 …                 # ~2 minutes: fewer, shorter sessions, short leases only
 *   SCALE_BENCH_SESSIONS=48 SCALE_BENCH_NODES=1,2,3 SCALE_BENCH_LEASES=default,short
 */
import { fileURLToPath } from 'node:url';
import { TestRedis } from '../test/support/redis-server.js';
import { isMain } from './lib/is-main.js';
import { machineInfo, publishResults } from './lib/report.js';
import { writeScaleClip } from './lib/scale-clip.js';
import { loadStep, type LoadRow } from './lib/scale-load.js';
import { lossBound, nodeLoss, type LeaseSettings, type LossRow } from './lib/scale-loss.js';
import { redisStats } from './lib/scale-nodes.js';
import { renderMarkdown, type ScaleReport } from './lib/scale-report.js';
import { spawnServer, type ServerProcess } from './lib/server-process.js';
import { VoiceClientProcess } from './lib/voice-client-process.js';
import { serveWebhook } from './lib/webhook-server.js';

const thisFile = fileURLToPath(import.meta.url);

export const leaseSettings: Record<string, LeaseSettings> = {
  default: { name: 'default', ttlMs: 30_000, sweepMs: 10_000 },
  short: { name: 'short', ttlMs: 3_000, sweepMs: 500 },
};

export interface ScaleOptions {
  quick: boolean;
  nodes: number[];
  /** Sessions of each load step, spread over its nodes. */
  sessions: number;
  /** Questions each session says (hello.wav, ~4.7 s each). */
  repeats: number;
  idleWindowMs: number;
  /** Sessions of the separate pass under MONITOR that counts the commands clients send. */
  traceSessions: number;
  lossNodes: number;
  lossSessions: number;
  leases: LeaseSettings[];
}

function options(): ScaleOptions {
  const quick = process.env['SCALE_BENCH_QUICK'] === '1';
  const env = (name: string) => process.env[`SCALE_BENCH_${name}`];
  const leases = (env('LEASES') ?? (quick ? 'short' : 'default,short')).split(',').map((name) => {
    const l = leaseSettings[name];
    if (l === undefined) throw new Error(`SCALE_BENCH_LEASES: no lease settings ${name}`);
    return l;
  });
  return {
    quick,
    nodes: (env('NODES') ?? '1,2,3').split(',').map(Number),
    sessions: Number(env('SESSIONS') ?? (quick ? 12 : 48)),
    repeats: Number(env('REPEATS') ?? (quick ? 3 : 6)),
    idleWindowMs: quick ? 5_000 : 10_000,
    traceSessions: quick ? 6 : 12,
    lossNodes: 3,
    lossSessions: Number(env('LOSS_SESSIONS') ?? (quick ? 12 : 24)),
    leases,
  };
}

export async function main(): Promise<ScaleReport> {
  const o = options();
  const frameMs = 20;
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const redis = await TestRedis.start({ external: false, persistence: false });
  const stats = await redisStats(redis.url);
  const clip = await writeScaleClip(o.repeats, frameMs);
  const warmClip = await writeScaleClip(1, frameMs);
  let webhook: ServerProcess | undefined;
  let clients: VoiceClientProcess | undefined;
  const load: LoadRow[] = [];
  const loss: LossRow[] = [];
  try {
    webhook = await spawnServer({ name: 'scale-webhook', script: thisFile, args: ['--serve', 'webhook'] });
    clients = await VoiceClientProcess.start();
    const webhookUrl = `${webhook.url}/hook`;
    for (const k of o.nodes) {
      console.log(`scale: ${o.sessions} sessions on ${k} node(s), ${Math.round(clip.durationMs / 1000)} s each…`);
      const row = await loadStep(
        {
          redisUrl: redis.url,
          webhookUrl,
          redis: stats,
          clients,
          clip,
          warmClip,
          frameMs,
          sessions: o.sessions,
          idleWindowMs: o.idleWindowMs,
          graceMs: 2_000,
          traceSessions: o.traceSessions,
        },
        k,
      );
      load.push(row);
      console.log(
        `  ${row.redis_commands_per_turn.toFixed(1)} Redis commands per turn, Redis ${row.redis_cpu_ms_per_session_s.toFixed(3)} ms and Parley ${row.parley_cpu_ms_per_session_s.toFixed(2)} ms CPU per session-s, wait p50 ${row.user_wait.p50_ms.toFixed(0)} ms, answered ${row.turns_answered}/${row.turns_answered + row.turns_missed}`,
      );
    }
    for (const leases of o.leases) {
      const { bound } = lossBound(leases);
      // the sessions still talk when the killed node's last one is due to have ended
      const lossClip = await writeScaleClip(Math.ceil((5_000 + bound + 5_000) / clip.repeatMs), frameMs);
      try {
        console.log(`scale: node loss, ${leases.name} leases (TTL ${leases.ttlMs} ms, sweep ${leases.sweepMs} ms)…`);
        const row = await nodeLoss(
          {
            redisUrl: redis.url,
            webhookUrl,
            clients,
            clip: lossClip,
            frameMs,
            nodes: o.lossNodes,
            sessions: o.lossSessions,
            killAfterMs: 5_000,
          },
          leases,
        );
        loss.push(row);
        console.log(
          `  kill → last session_end ${row.last_end_ms} ms (bound ${row.bound_ms} ms), ${row.killed_sessions} sessions, duplicates ${row.duplicate_ends}`,
        );
      } finally {
        lossClip.remove();
      }
    }
    const report: ScaleReport = {
      bench: 'scale',
      started_at: startedAt,
      quick: o.quick,
      machine,
      load_avg_1m_at_end: machineInfo().load_avg_1m,
      options: { ...o, clip_s: clip.durationMs / 1000, frame_ms: frameMs },
      load,
      node_loss: loss,
    };
    const markdown = renderMarkdown(report);
    await publishResults('scale', report, markdown);
    return report;
  } finally {
    await clients?.stop().catch(() => {});
    await webhook?.stop().catch(() => {});
    await stats.close().catch(() => {});
    clip.remove();
    warmClip.remove();
    await redis.close();
  }
}

if (isMain(import.meta.url)) {
  const [flag, target] = process.argv.slice(2);
  if (flag === '--serve' && target === 'webhook') await serveWebhook();
  else await main();
}
