import { randomBytes } from 'node:crypto';
import { AppError } from '../errors.js';
import type { EventOutbox } from '../events/outbox.js';
import type { StoredAgent } from '../records/agent.js';
import type { Store } from '../store/store.js';
import { clientUrl, mintParticipantToken, type LivekitCredentials } from './livekit/tokens.js';

export interface VoiceSessionGrant {
  session_id: string;
  connection_token: string;
  connection_url: string;
}

export interface VoiceSessionOptions {
  store: Store;
  outbox: EventOutbox;
  livekit: LivekitCredentials | undefined;
  tokenTtlS: number;
}

/** The LiveKit room of a session: one room per session, named for it. */
export function roomName(sessionId: string): string {
  return `parley-${sessionId}`;
}

/**
 * POST /sdk/v1/session: a voice session record plus what the SDK needs to join the media plane.
 * Without LiveKit configured the answer is 503 `voice_unavailable` (SPEC §7).
 */
export class VoiceSessions {
  constructor(private readonly o: VoiceSessionOptions) {}

  async open(agent: StoredAgent, request: { user_id?: string | undefined }): Promise<VoiceSessionGrant> {
    const livekit = this.o.livekit;
    if (livekit === undefined) {
      throw new AppError(503, 'voice_unavailable', 'voice is not configured on this server (set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET)');
    }
    const userId = request.user_id ?? null;
    const session = await this.o.store.sessions.create({ agent_id: agent.id, type: 'voice', transport: 'livekit', user_id: userId });
    const room = roomName(session.id);
    const connectionToken = await mintParticipantToken(livekit, {
      room,
      identity: userId ?? `user-${randomBytes(6).toString('hex')}`,
      ttlS: this.o.tokenTtlS,
      metadata: { session_id: session.id, agent_id: agent.id },
    });
    this.o.outbox.emit(agent, 'session_start', session.id, {
      session_type: 'voice',
      transport: 'livekit',
      user_id: userId,
      room,
      conversation_id: session.conversation_id,
    });
    return { session_id: session.id, connection_token: connectionToken, connection_url: clientUrl(livekit.url) };
  }
}
