import { randomBytes } from 'node:crypto';
import { AppError } from '../errors/app-errors.js';
import { newId } from '../ids/new-id.js';
import type { StoredAgent } from '../schemas/agent.js';
import type { Session } from '../schemas/session.js';
import type { Store } from '../store/store.js';
import type { SessionRecorder } from '../session-writes/turn-recorder.js';
import { clientUrl, mintParticipantToken, type LivekitCredentials } from './livekit/tokens.js';
import { mediaPath } from './websocket/media-server.js';
import type { MediaTokens } from './websocket/media-token.js';

export interface VoiceSessionGrant {
  session_id: string;
  connection_token: string;
  connection_url: string;
}

export interface VoiceSessionOptions {
  store: Store;
  /** Creates the session with its `session_start` event, atomically. */
  recorder: SessionRecorder;
  livekit: LivekitCredentials | undefined;
  tokenTtlS: number;
  /** A session not connected this long after creation ends (`never_connected`); at most the token TTL. */
  connectWindowMs: number;
  mediaTokens: MediaTokens;
  /** PARLEY_PUBLIC_URL: the address clients reach; else the request's own origin is used. */
  publicUrl: string | undefined;
  /** PARLEY_LIVEKIT_AGENT_NAME: the agent worker the token's room configuration dispatches (default `parley`). */
  livekitAgentName?: string | undefined;
}

export type VoiceTransport = 'livekit' | 'websocket';

/** The LiveKit room of a session: one room per session, named for it. */
export function roomName(sessionId: string): string {
  return `parley-${sessionId}`;
}

/**
 * POST /sdk/v1/session: a voice session record plus what the SDK needs to join the media plane:
 * LiveKit when configured, else Parley's own WebSocket endpoint, unless the request names one. Only
 * a request for LiveKit on a server without it is 503 `voice_unavailable` (SPEC §7). Every voice session
 * gets a connect window, opened in Redis before its record exists: unless a media connection
 * claims it in time, a reaper ends it (`never_connected`), whatever happens to this process.
 */
export class VoiceSessions {
  constructor(private readonly o: VoiceSessionOptions) {}

  async open(
    agent: StoredAgent,
    request: {
      user_id?: string | undefined;
      transport?: VoiceTransport | undefined;
      /** The session's metadata (agent tests mark their sessions); the SDK sets none. */
      metadata?: Session['metadata'] | undefined;
    },
    origin: string,
  ): Promise<VoiceSessionGrant> {
    const livekit = this.o.livekit;
    const transport = request.transport ?? (livekit === undefined ? 'websocket' : 'livekit');
    if (transport === 'websocket') return this.openWebSocket(agent, request.user_id ?? null, origin, request.metadata);
    if (livekit === undefined) {
      throw new AppError(
        503,
        'voice_unavailable',
        'LiveKit is not configured on this server (set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET, or leave out "transport" for the built-in WebSocket endpoint)',
      );
    }
    const userId = request.user_id ?? null;
    const sessionId = newId('session');
    const room = roomName(sessionId);
    await this.o.store.leases.awaitMedia(sessionId, this.o.connectWindowMs);
    const session = await this.o.recorder.started(agent, {
      id: sessionId,
      agent_id: agent.id,
      type: 'voice',
      transport: 'livekit',
      user_id: userId,
      room,
      metadata: request.metadata,
    });
    const connectionToken = await mintParticipantToken(livekit, {
      room,
      identity: userId ?? `user-${randomBytes(6).toString('hex')}`,
      ttlS: this.o.tokenTtlS,
      metadata: { session_id: session.id, agent_id: agent.id },
      dispatch: {
        agentName: this.o.livekitAgentName ?? 'parley',
        metadata: { session_id: session.id, agent_id: agent.id },
      },
    });
    return { session_id: session.id, connection_token: connectionToken, connection_url: clientUrl(livekit.url) };
  }

  /** A session on Parley's own WebSocket media endpoint, with a connection token Parley signed. */
  private async openWebSocket(
    agent: StoredAgent,
    userId: string | null,
    origin: string,
    metadata?: Session['metadata'],
  ): Promise<VoiceSessionGrant> {
    let base: URL;
    try {
      base = new URL(this.o.publicUrl ?? origin);
    } catch {
      throw new AppError(
        400,
        'bad_request',
        'the Host header is not a valid host; set PARLEY_PUBLIC_URL behind proxies',
      );
    }
    const sessionId = newId('session');
    await this.o.store.leases.awaitMedia(sessionId, this.o.connectWindowMs);
    const session = await this.o.recorder.started(agent, {
      id: sessionId,
      agent_id: agent.id,
      type: 'voice',
      transport: 'websocket',
      user_id: userId,
      metadata,
    });
    const token = await this.o.mediaTokens.issue({ sessionId: session.id, agentId: agent.id }, this.o.tokenTtlS);
    base.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
    base.pathname = base.pathname.replace(/\/$/, '') + mediaPath;
    return { session_id: session.id, connection_token: token, connection_url: base.toString() };
  }
}
