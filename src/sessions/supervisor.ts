import type { Logger } from 'pino';
import type { StoredAgent } from '../records/agent.js';
import type { Session } from '../records/session.js';
import type { MediaTransport } from '../realtime/transport.js';
import { VoiceSession, type VoiceSessionDeps } from './voice-session.js';

/**
 * The live voice sessions of this process, one root actor each. A session that fails ends alone
 * (VoiceSession records the error); `drain` ends every session cleanly for shutdown.
 */
export class SessionSupervisor {
  private readonly live = new Map<string, VoiceSession>();
  /** The transport of each live session (`websocket`, `livekit`), for the live-session gauge. */
  private readonly transports = new Map<string, string>();
  private accepting = true;

  constructor(
    private readonly deps: VoiceSessionDeps,
    private readonly logger: Logger,
  ) {}

  get size(): number {
    return this.live.size;
  }

  has(sessionId: string): boolean {
    return this.live.has(sessionId);
  }

  /** Live sessions of this process by transport. */
  countByTransport(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const kind of this.transports.values()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
    return counts;
  }

  /** Runs a session on a connected transport; false when shutting down or already connected. */
  async attach(agent: StoredAgent, session: Session, transport: MediaTransport): Promise<boolean> {
    if (!this.accepting || this.live.has(session.id)) return false;
    const voice = await VoiceSession.start(this.deps, agent, session, transport);
    this.live.set(session.id, voice);
    this.transports.set(session.id, transport.kind);
    void voice.done.then((reason) => {
      this.live.delete(session.id);
      this.transports.delete(session.id);
      this.logger.info({ session_id: session.id, reason }, 'voice session ended');
    });
    return true;
  }

  /** Stops taking sessions and ends the live ones; resolves when all have ended or after timeoutMs. */
  async drain(timeoutMs: number): Promise<void> {
    this.accepting = false;
    const sessions = [...this.live.values()];
    for (const s of sessions) s.shutdown();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(sessions.map((s) => s.done)),
      new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
    if (this.live.size > 0)
      this.logger.warn({ left: this.live.size }, 'voice sessions still open after the drain timeout');
  }
}
