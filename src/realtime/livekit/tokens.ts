import { RoomAgentDispatch, RoomConfiguration } from '@livekit/protocol';
import { AccessToken } from 'livekit-server-sdk';

export interface LivekitCredentials {
  url: string;
  apiKey: string;
  apiSecret: string;
}

export interface ParticipantGrant {
  room: string;
  identity: string;
  /** Seconds. */
  ttlS: number;
  metadata?: Record<string, string>;
  /**
   * The agent LiveKit dispatches when this participant creates the room (the token's `roomConfig`),
   * with the job metadata it carries (which session and agent the job is for).
   */
  dispatch?: { agentName: string; metadata: Record<string, string> };
}

/** A participant token: join this room only, publish and subscribe, short-lived. */
export async function mintParticipantToken(creds: LivekitCredentials, grant: ParticipantGrant): Promise<string> {
  const token = new AccessToken(creds.apiKey, creds.apiSecret, {
    identity: grant.identity,
    ttl: grant.ttlS,
    metadata: grant.metadata === undefined ? undefined : JSON.stringify(grant.metadata),
  });
  token.addGrant({ room: grant.room, roomJoin: true, canPublish: true, canSubscribe: true, canPublishData: true });
  if (grant.dispatch !== undefined) {
    token.roomConfig = new RoomConfiguration({
      agents: [
        new RoomAgentDispatch({
          agentName: grant.dispatch.agentName,
          metadata: JSON.stringify(grant.dispatch.metadata),
        }),
      ],
    });
  }
  return token.toJwt();
}

/** The worker's own credential for the agent-worker WebSocket: grant `video.agent`, short-lived. */
export function mintWorkerToken(creds: LivekitCredentials): Promise<string> {
  const token = new AccessToken(creds.apiKey, creds.apiSecret, { ttl: 600 });
  token.addGrant({ agent: true });
  return token.toJwt();
}

/** The `wss` URL clients connect to (an http(s) LIVEKIT_URL is turned into ws(s)). */
export function clientUrl(url: string): string {
  return url.replace(/^http(s?):\/\//, 'ws$1://');
}

/**
 * The agent-worker endpoint: LIVEKIT_URL as ws(s) with `agent` appended to its path
 * (`wss://host/agent`, or `wss://host/prefix/agent` behind a path prefix), query kept.
 */
export function workerUrl(url: string): string {
  const u = new URL(clientUrl(url));
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/agent`;
  return u.toString();
}
