import type { Job } from '@livekit/protocol';
import { nullIfNotFound } from '../../errors/app-errors.js';
import { isId } from '../../ids/id-format.js';
import type { JobHost } from './worker-types.js';
import { LivekitJob, type JobDeps, type JobPlan } from './job.js';

export interface JobsOptions {
  /** PARLEY_MAX_SESSIONS: live voice sessions (any transport) past which jobs are refused. */
  maxSessions: number;
}

/** What a job's metadata may name: the SDK's `{session_id, agent_id}`, or `{agent_id}` for dispatch/SIP. */
interface JobMetadata {
  session_id?: string;
  agent_id?: string;
}

type Refusal = { available: false; reason: string };

/**
 * The LiveKit jobs of this process: decides which offers to take (capacity, draining, a known
 * agent and an active session), runs the assigned ones in-process, ends them on termination or
 * shutdown. Load is live voice sessions (WebSocket ones included: they share this process's CPU)
 * plus accepted jobs not yet running, over PARLEY_MAX_SESSIONS.
 */
export class LivekitJobs implements JobHost {
  private readonly reserved = new Map<string, JobPlan>();
  private readonly live = new Map<string, LivekitJob>();
  private closing = false;

  constructor(
    private readonly deps: JobDeps,
    private readonly o: JobsOptions,
  ) {}

  get jobCount(): number {
    return this.live.size;
  }

  /** Running jobs, for worker-status and the rooms endpoint. */
  jobs(): LivekitJob[] {
    return [...this.live.values()];
  }

  load(): number {
    return Math.min(1, this.committed() / this.o.maxSessions);
  }

  async offer(job: Job, resuming = false): Promise<{ available: boolean; reason: string | null }> {
    if (this.closing) return refuse('shutting down');
    if (this.committed() >= this.o.maxSessions)
      return refuse(`at capacity (${this.o.maxSessions} sessions, PARLEY_MAX_SESSIONS)`);
    const plan = await this.plan(job, resuming);
    if ('reason' in plan) return plan;
    this.reserved.set(job.id, plan);
    return { available: true, reason: null };
  }

  assign(job: Job, url: string, token: string): void {
    const plan = this.reserved.get(job.id);
    this.reserved.delete(job.id);
    if (plan === undefined || this.closing) {
      this.deps.logger.warn({ job_id: job.id }, 'LiveKit assignment for a job not reserved here; ignored');
      return;
    }
    const running = new LivekitJob(job, plan, this.deps);
    this.live.set(job.id, running);
    void running.done.then(() => this.live.delete(job.id));
    void running.run(url, token);
  }

  terminate(jobId: string): void {
    this.reserved.delete(jobId);
    void this.live.get(jobId)?.end('job_terminated', null);
  }

  abandon(jobId: string): void {
    this.reserved.delete(jobId);
  }

  /**
   * Shutdown: lets running jobs end on their own for up to `timeoutMs`, then ends the rest
   * (`shutdown`: records written, `session_end` queued) and waits for them to leave their rooms.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.closing = true;
    this.reserved.clear();
    const all = () => Promise.allSettled([...this.live.values()].map((j) => j.done));
    await within(all(), timeoutMs);
    const left = [...this.live.values()];
    if (left.length > 0) this.deps.logger.info({ jobs: left.length }, 'drain timeout: ending LiveKit sessions');
    await Promise.allSettled(left.map((j) => j.end('shutdown', null)));
    await within(all(), 5_000);
  }

  /** Live sessions, plus accepted jobs and jobs still joining their room (no session in the supervisor yet). */
  private committed(): number {
    let starting = 0;
    for (const job of this.live.values())
      if (job.sessionId === null || !this.deps.supervisor.has(job.sessionId)) starting++;
    return this.deps.supervisor.size + this.reserved.size + starting;
  }

  /**
   * A job LiveKit offers again (`resuming`: its worker went away, e.g. a node killed mid-call) for
   * an SDK session that some process had claimed (or that has ended since): that lease belongs to
   * the lost process and cannot be continued here, so the job starts a new session in the same room
   * (metadata `livekit_resumes_session_id`); a reaper ends the old one `owner_lost` once its lease
   * expires. A session nobody had claimed yet is simply continued.
   */
  private async plan(job: Job, resuming: boolean): Promise<JobPlan | Refusal> {
    const meta = parseMetadata(job.metadata);
    if (meta === null)
      return refuse('job metadata must be JSON naming the agent: {"agent_id":"agt_…"} (or the SDK\'s session_id)');
    const { store } = this.deps;
    if (meta.session_id !== undefined) {
      const session = await store.sessions.get(meta.session_id).catch(nullIfNotFound);
      if (session === null) return refuse(`session ${meta.session_id} does not exist`);
      if (resuming && session.transport === 'livekit' && !this.deps.supervisor.has(session.id)) {
        const claimed = session.status !== 'active' || (await store.leases.holderOf(session.id)) !== null;
        if (claimed) {
          const agent = await store.agents.getStored(session.agent_id).catch(nullIfNotFound);
          if (agent === null) return refuse(`agent ${session.agent_id} no longer exists`);
          return { agent, session: null, resumes: session.id };
        }
      }
      if (session.status !== 'active') return refuse(`session ${session.id} has ended`);
      if (session.transport !== 'livekit') return refuse(`session ${session.id} is not a LiveKit session`);
      if (session.room !== null && job.room !== undefined && session.room !== job.room.name)
        return refuse(`session ${session.id} belongs to room ${session.room}`);
      if (this.deps.supervisor.has(session.id)) return refuse(`session ${session.id} already runs here`);
      const agent = await store.agents.getStored(session.agent_id).catch(nullIfNotFound);
      return agent === null ? refuse(`agent ${session.agent_id} no longer exists`) : { agent, session };
    }
    if (meta.agent_id === undefined) return refuse('job metadata names no agent_id');
    const agent = await store.agents.getStored(meta.agent_id).catch(nullIfNotFound);
    return agent === null ? refuse(`agent ${meta.agent_id} does not exist`) : { agent, session: null };
  }
}

function refuse(reason: string): Refusal {
  return { available: false, reason };
}

function parseMetadata(raw: string): JobMetadata | null {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null; // not JSON: the job is refused with the metadata it needs (plan())
  }
  if (typeof value !== 'object' || value === null) return null;
  const { session_id: sessionId, agent_id: agentId } = value as Record<string, unknown>;
  const meta: JobMetadata = {};
  if (typeof sessionId === 'string' && isId('session', sessionId)) meta.session_id = sessionId;
  if (typeof agentId === 'string' && isId('agent', agentId)) meta.agent_id = agentId;
  return meta;
}

async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
