import { withTimeout } from '../../primitives/with-timeout.js';
import { JobStatus, type Job } from '@livekit/protocol';
import type { Logger } from 'pino';
import { nullIfNotFound } from '../../errors/app-errors.js';
import type { EventOutbox } from '../../events/outbox.js';
import type { StoredAgent } from '../../schemas/agent.js';
import type { Session, SessionEndReason } from '../../schemas/session.js';
import type { AttachRefusal, SessionSupervisor } from '../../sessions/supervisor.js';
import type { Store } from '../../store/store.js';
import type { SessionRecorder } from '../../session-writes/turn-recorder.js';
import type { AgentRoom, RoomConnector } from './agent-room.js';
import { LivekitTransport, type SipTransfer } from './livekit-transport.js';

/** Why a LiveKit job ended a session from the room's side. */
export type RoomEndReason = Extract<
  SessionEndReason,
  'participant_left' | 'room_closed' | 'job_terminated' | 'livekit_disconnected' | 'shutdown' | 'error'
>;

/** The agent a job runs, the SDK session it continues (else one is created), the lost one it replaces (jobs.ts). */
export interface JobPlan {
  agent: StoredAgent;
  session: Session | null;
  resumes?: string;
}

export interface JobDeps {
  store: Store;
  outbox: EventOutbox;
  supervisor: SessionSupervisor;
  recorder: SessionRecorder;
  connect: RoomConnector;
  logger: Logger;
  /** Reports the job's status to LiveKit. */
  status(jobId: string, status: JobStatus, error?: string): void;
  instanceId: string;
  workerId: () => string | null;
  /** Microphone rate asked of LiveKit (resampled natively); the VAD's rate. */
  inputSampleRate: number;
  /** Rate of the agent's published track. */
  outputSampleRate: number;
  /** LiveKit's SIP transfer, for call control `transfer`. */
  sipTransfer?: SipTransfer | undefined;
}

/** A room that cannot be joined in this long fails the job (nothing waits forever). */
const roomJoinTimeoutMs = 20_000;

/** How long a room link outlives a crashed instance that never removed it. */
const linkTtlMs = 24 * 3_600_000;

/**
 * One LiveKit job, in this process: joins the room with the job's token, waits for the user's
 * microphone, runs a VoiceSession on a LivekitTransport through the supervisor, and leaves the
 * room when the session ends, whichever side ended it. Room-side ends (the user left, the room
 * closed, the job was terminated, the connection was lost, shutdown) end the session record first,
 * with that reason, through the turn recorder; the VoiceSession then finds it ended already.
 */
export class LivekitJob {
  readonly done: Promise<void>;
  readonly startedAt = Date.now();
  sessionId: string | null;
  userIdentity: string | null = null;
  private resolveDone!: () => void;
  private room: AgentRoom | undefined;
  private transport: LivekitTransport | undefined;
  /** Set by `end`: why the room side ended the session. */
  private ending: { reason: RoomEndReason; error: string | null } | false = false;
  private recorded = false;
  private left = false;
  private linked = false;
  private failure: string | null = null;

  constructor(
    readonly job: Job,
    private readonly plan: JobPlan,
    private readonly deps: JobDeps,
  ) {
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.sessionId = plan.session?.id ?? null;
  }

  get roomName(): string {
    return this.job.room?.name ?? this.room?.name ?? '';
  }

  get agentId(): string {
    return this.plan.agent.id;
  }

  /** Joins the room and starts the session; never rejects (failures end the job). */
  async run(url: string, token: string): Promise<void> {
    const { deps, plan } = this;
    try {
      const room = await withTimeout(
        deps.connect(url, token),
        roomJoinTimeoutMs,
        () => new Error(`could not join the room within ${roomJoinTimeoutMs} ms`),
      );
      this.room = room;
      room.onDisconnected((cause) =>
        cause === 'room_closed'
          ? void this.end('room_closed', null)
          : void this.end('livekit_disconnected', 'the connection to the LiveKit room was lost'),
      );
      if (this.ending) return void (await this.leave());
      const out = await room.publishAudio(deps.outputSampleRate);
      // The session starts when the user joins; their microphone is read once they publish one
      // (someone who only types on lk.chat is served all the same).
      const identity = await room.firstParticipant();
      if (identity === null || this.ending) return void (await this.leave());
      this.userIdentity = identity;
      room.onParticipantLeft((left) => {
        if (left === identity) void this.participantLeft();
      });
      const microphone = room.microphone(identity, deps.inputSampleRate);
      const session = plan.session ?? (await this.createSession(identity));
      this.sessionId = session.id;
      if (this.ending) {
        // The room went away while the session was being set up: record the end that came.
        await this.recordEnd();
        return void (await this.leave());
      }
      const transport = new LivekitTransport(
        room,
        { identity, microphone },
        out,
        deps.inputSampleRate,
        deps.outputSampleRate,
        deps.logger.child({ session_id: session.id, room: this.roomName }),
        deps.sipTransfer,
      );
      this.transport = transport;
      // a room connection that fails ends the job as a closed one does (the session records its own end)
      transport.closed$.subscribe({ next: () => void this.leave(), error: () => void this.leave() });
      const attached = await deps.supervisor.attach(plan.agent, session, transport);
      if (!attached.ok) return void (await this.refused(attached.refusal));
      // Linked once the session is ours (a refused job must not overwrite another job's link).
      await this.link(session.id);
      deps.status(this.job.id, JobStatus.JS_RUNNING);
      deps.logger.info({ job_id: this.job.id, session_id: session.id, room: this.roomName }, 'LiveKit job running');
    } catch (err) {
      await this.fail(err);
    }
  }

  /**
   * The user left. A transferred SIP caller leaves the room when the transfer succeeds: the session
   * then ends `transferred` (its own end), not `participant_left`.
   */
  private async participantLeft(): Promise<void> {
    const transfer = this.transport?.transferOutcome ?? null;
    if (transfer !== null && (await transfer)) return;
    await this.end('participant_left', null);
  }

  /** Ends the session from the room's side with `reason` (an error record when `error` is set) and leaves. */
  async end(reason: RoomEndReason, error: string | null): Promise<void> {
    if (this.ending) return;
    this.ending = { reason, error };
    await this.recordEnd();
    this.deps.logger.info(
      { job_id: this.job.id, session_id: this.sessionId, reason },
      'LiveKit session ended from the room',
    );
    if (this.transport !== undefined) this.transport.close();
    else await this.leave();
  }

  /**
   * The supervisor would not run the session. Shutting down ends it `shutdown`; an unreachable
   * store is an error (recorded once Redis answers, else the reaper ends it). A session connected
   * elsewhere is left alone, and one already ended (or failed to start: the supervisor recorded
   * it) is not ended again; the job leaves the room and reports itself failed with the reason.
   */
  private async refused(refusal: AttachRefusal): Promise<void> {
    const { deps, job } = this;
    deps.logger.warn({ job_id: job.id, session_id: this.sessionId, refusal }, 'LiveKit job refused by the supervisor');
    if (refusal === 'shutting_down') return this.end('shutdown', null);
    if (refusal === 'store_unavailable')
      return this.end('error', 'the session could not be claimed: the store (Redis) is unavailable');
    this.failure = refusalMessages[refusal];
    this.recorded = true; // nothing of this session is ours to record
    this.ending = { reason: 'error', error: null };
    this.transport?.close();
  }

  /** Writes the pending end (error record, session end, `session_end`) once a session exists. */
  private async recordEnd(): Promise<void> {
    const { deps, plan, ending } = this;
    const sessionId = this.sessionId;
    if (sessionId === null || ending === false || this.recorded) return;
    this.recorded = true;
    const { reason, error } = ending;
    if (error !== null) {
      this.failure = error;
      await deps.store.errors
        .record({
          type: reason === 'error' ? 'livekit_job_failed' : reason,
          message: error,
          agent_id: plan.agent.id,
          session_id: sessionId,
          details: { job_id: this.job.id, room: this.roomName },
        })
        .catch((err: unknown) => deps.logger.error({ err }, 'could not record a LiveKit session error'));
    }
    await deps.recorder
      .ended(plan.agent, sessionId, reason, { error, session_type: 'voice' })
      .catch((err: unknown) => deps.logger.error({ err, session_id: sessionId }, 'could not end a LiveKit session'));
  }

  private async fail(err: unknown): Promise<void> {
    const message = err instanceof Error ? err.message : String(err);
    this.deps.logger.error({ err, job_id: this.job.id, room: this.roomName }, 'LiveKit job failed');
    if (this.sessionId === null) {
      this.failure = message;
      await this.deps.store.errors
        .record({
          type: 'livekit_job_failed',
          message,
          agent_id: this.plan.agent.id,
          details: { job_id: this.job.id, room: this.roomName },
        })
        .catch((e: unknown) => this.deps.logger.error({ err: e }, 'could not record a LiveKit job error'));
    }
    await this.end('error', `LiveKit job failed: ${message}`);
  }

  /** Leaves the room and reports the job's end to LiveKit, once. */
  private async leave(): Promise<void> {
    if (this.left) return;
    this.left = true;
    const { deps } = this;
    try {
      if (this.linked) await deps.store.livekit.unlinkRoom(this.roomName);
      await this.room?.disconnect();
    } catch (err) {
      deps.logger.warn({ err, job_id: this.job.id }, 'leaving the LiveKit room failed');
    }
    if (this.failure === null && this.sessionId !== null) this.failure = await this.sessionFailure(this.sessionId);
    deps.status(this.job.id, this.failure === null ? JobStatus.JS_SUCCESS : JobStatus.JS_FAILED, this.failure ?? '');
    this.resolveDone();
  }

  /**
   * Why the job failed, as its session's record says (null: it did not, or the record is gone).
   * A store that cannot be read is not taken for a missing record: the job reports that instead.
   */
  private async sessionFailure(sessionId: string): Promise<string | null> {
    try {
      const session = await this.deps.store.sessions.get(sessionId).catch(nullIfNotFound);
      return session?.end_reason === 'error' ? 'the voice session failed' : null;
    } catch (err) {
      this.deps.logger.warn(
        { err, job_id: this.job.id, session_id: sessionId },
        'could not read the session at job end',
      );
      return 'the session could not be read: the store (Redis) is unavailable';
    }
  }

  /** A session for a job nobody opened through the SDK (dispatch API, SIP, another token). */
  private async createSession(userIdentity: string): Promise<Session> {
    const { recorder } = this.deps;
    const { agent, resumes } = this.plan;
    const replaced: Record<string, string> = resumes === undefined ? {} : { livekit_resumes_session_id: resumes };
    return recorder.started(agent, {
      agent_id: agent.id,
      type: 'voice',
      transport: 'livekit',
      user_id: userIdentity,
      room: this.roomName,
      metadata: { livekit_job_id: this.job.id, livekit_dispatch_id: this.job.dispatchId || null, ...replaced },
    });
  }

  /** Room → session and job, for the rooms endpoint (rooms not named after their session included). */
  private async link(sessionId: string): Promise<void> {
    this.linked = true;
    await this.deps.store.livekit.linkRoom(
      this.roomName,
      {
        session_id: sessionId,
        agent_id: this.plan.agent.id,
        job_id: this.job.id,
        worker_id: this.deps.workerId() ?? '',
        instance_id: this.deps.instanceId,
        participant: this.userIdentity ?? '',
        started_ms: String(this.startedAt),
      },
      linkTtlMs,
    );
  }
}

const refusalMessages: Record<Exclude<AttachRefusal, 'shutting_down' | 'store_unavailable'>, string> = {
  already_connected: 'the session already has a media connection (another job or instance)',
  session_ended: 'the session has ended',
  failed: 'the voice session failed to start',
};
