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
}

/** A participant token: join this room only, publish and subscribe, short-lived. */
export async function mintParticipantToken(creds: LivekitCredentials, grant: ParticipantGrant): Promise<string> {
  const token = new AccessToken(creds.apiKey, creds.apiSecret, {
    identity: grant.identity,
    ttl: grant.ttlS,
    metadata: grant.metadata === undefined ? undefined : JSON.stringify(grant.metadata),
  });
  token.addGrant({ room: grant.room, roomJoin: true, canPublish: true, canSubscribe: true, canPublishData: true });
  return token.toJwt();
}

/** The `wss` URL clients connect to (an http(s) LIVEKIT_URL is turned into ws(s)). */
export function clientUrl(url: string): string {
  return url.replace(/^http(s?):\/\//, 'ws$1://');
}
