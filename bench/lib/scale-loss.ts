/**
 * bench/scale.ts's node loss: k nodes with live voice sessions spread over them (speaking the scale
 * clip at real-time pace), then `kill -9` on the last node's processes, and the time from the kill
 * until every one of its sessions' `session_end` has reached the agent's events URL (a local
 * receiver), against the bound the lease settings give (src/sessions/session-reaper.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpReceiver } from '../../test/support/http-receiver.js';
import type { ScaleClip } from './scale-clip.js';
import { createBenchAgent, openSessions } from './bench-api.js';
import { killNode, startNodes, stopNodes } from './scale-nodes.js';
import type { VoiceClientProcess } from './voice-client-process.js';
import type { ChildMessage, TalkResult } from './voice-load-protocol.js';

export interface LeaseSettings {
  name: string;
  ttlMs: number;
  sweepMs: number;
}

export interface LossRow {
  leases: string;
  lease_ttl_ms: number;
  sweep_interval_ms: number;
  nodes: number;
  sessions: number;
  killed_sessions: number;
  /** Kill → first and last `session_end` of the killed node's sessions received. */
  first_end_ms: number;
  last_end_ms: number;
  /** Lease expiry (at most a TTL after the last renewal, which was before the kill) + one sweep. */
  bound_ms: number;
  /** The earliest it can be: the lease renewed just before the kill (2/3 TTL left). */
  earliest_ms: number;
  /** Reapers wait this long after their first sweep before taking expired leases; met before the kill. */
  settle_ms: number;
  reasons: string[];
  /** session_end events received more than once (per session id), after the run. */
  duplicate_ends: number;
  /** Sessions on the surviving nodes ended before the clip was over (should be 0). */
  survivors_cut: number;
  /** Turns the survivors' sessions answered / asked, over the whole clip. */
  survivors_answered: string;
  ended_all: boolean;
}

interface EndEvent {
  type?: string;
  session_id?: string;
  data?: { reason?: string };
}

export interface LossPlan {
  redisUrl: string;
  webhookUrl: string;
  clients: VoiceClientProcess;
  clip: ScaleClip;
  frameMs: number;
  nodes: number;
  sessions: number;
  /** After the talk job is sent: sessions connected and talking. */
  killAfterMs: number;
}

/** The bound of the reaper's code for these settings (see the row's fields). */
export function lossBound(l: LeaseSettings) {
  const renewEvery = Math.floor(l.ttlMs / 3);
  const sweep = Math.min(l.sweepMs, renewEvery);
  return { bound: l.ttlMs + sweep, earliest: l.ttlMs - renewEvery, settle: Math.max(renewEvery, 5_000) };
}

export async function nodeLoss(plan: LossPlan, leases: LeaseSettings): Promise<LossRow> {
  const { bound, earliest, settle } = lossBound(leases);
  const events = await HttpReceiver.start(() => ({ status: 204 }));
  const nodes = await startNodes(plan.nodes, plan.redisUrl, {
    PARLEY_SESSION_LEASE_TTL_MS: String(leases.ttlMs),
    PARLEY_SESSION_SWEEP_INTERVAL_MS: String(leases.sweepMs),
  });
  try {
    const agent = {
      name: 'Bench scale agent',
      webhook_url: plan.webhookUrl,
      greeting: null,
      events_url: `${events.url}/events`,
    };
    const agentToken = (await createBenchAgent(nodes[0]!.url, agent)).agent_token;
    // every survivor's reaper has settled (its first sweep + settle) before the kill
    const settledAt = Math.max(...nodes.map((n) => n.readyAt)) + settle + Math.min(leases.sweepMs, leases.ttlMs / 3);
    const grants = await openSessions(
      nodes.map((n) => n.url),
      agentToken,
      plan.sessions,
      16,
    );
    const talking = plan.clients.ask(
      {
        job: 'talk',
        sessions: grants,
        frameMs: plan.frameMs,
        clipPath: plan.clip.path,
        speechEndFrames: plan.clip.speechEndFrames,
        staggerMs: plan.clip.repeatMs,
        graceMs: 2_000,
      },
      (m: ChildMessage): m is TalkResult => 'job' in m && m.job === 'talk',
    );
    await sleep(Math.max(plan.killAfterMs, settledAt - performance.now()));
    const victim = nodes.at(-1)!;
    const killed = new Set(grants.filter((g) => g.node === victim.index).map((g) => g.session_id));
    const killedAt = killNode(victim);
    const ends = () =>
      events.requests.filter((r) => {
        const e = r.json as EndEvent;
        return e.type === 'session_end' && e.session_id !== undefined && killed.has(e.session_id);
      });
    const endedAll = () => new Set(ends().map((r) => (r.json as EndEvent).session_id)).size === killed.size;
    await events.until(endedAll, bound * 2 + 15_000).catch(() => {});
    const lossEnds = ends();
    const times = lossEnds.map((r) => r.receivedAt - killedAt);
    const result = await talking;
    await sleep(1_000); // the survivors' own ends, and any late duplicate
    const all = events.requests.map((r) => r.json as EndEvent).filter((e) => e.type === 'session_end');
    const perSession = new Map<string, number>();
    for (const e of all) perSession.set(e.session_id!, (perSession.get(e.session_id!) ?? 0) + 1);
    const survivorIdx = grants.flatMap((g, i) => (killed.has(g.session_id) ? [] : [i]));
    const survivorWaits = survivorIdx.flatMap((i) => result.waits_ms[i]!);
    const cut = all.filter(
      (e) => !killed.has(e.session_id!) && e.data?.reason !== undefined && e.data.reason !== 'client_hangup',
    );
    return {
      leases: leases.name,
      lease_ttl_ms: leases.ttlMs,
      sweep_interval_ms: leases.sweepMs,
      nodes: plan.nodes,
      sessions: plan.sessions,
      killed_sessions: killed.size,
      first_end_ms: Math.min(...times),
      last_end_ms: Math.max(...times),
      bound_ms: bound,
      earliest_ms: earliest,
      settle_ms: settle,
      reasons: [...new Set(lossEnds.map((r) => (r.json as EndEvent).data?.reason ?? '?'))],
      duplicate_ends: [...perSession.values()].filter((n) => n > 1).length,
      survivors_cut: cut.length,
      survivors_answered: `${survivorWaits.filter((w) => w !== null).length}/${survivorWaits.length}`,
      ended_all: endedAll(),
    };
  } finally {
    await stopNodes(nodes);
    await events.close();
  }
}
