import { newId } from '../ids/new-id.js';
import type { StoredAgent } from '../schemas/agent.js';
import type { SessionRecorder } from '../session-writes/turn-recorder.js';
import type { Store } from '../store/store.js';

/** Parley's Twilio Media Streams endpoint, relative to PARLEY_PUBLIC_URL. */
export const twilioMediaPath = '/telephony/v1/twilio/media';

/** One phone call: inbound (Twilio's voice webhook) or outbound (placed through the REST API). */
export type PhoneCall =
  | {
      direction: 'inbound';
      callSid: string;
      /** The caller's number (E.164, or `anonymous` and the like when withheld). */
      from: string;
      /** The number called: the agent's. */
      to: string;
    }
  | { direction: 'outbound'; from: string; to: string; userId: string | null };

export interface CallStream {
  session_id: string;
  /** The `wss://…/telephony/v1/twilio/media` URL of `<Stream>`. */
  url: string;
  /** Custom parameters of `<Stream>`, returned in the stream's `start`: `session_id` and `token`. */
  parameters: { session_id: string; token: string };
}

/** Signs the media token the stream presents (realtime/websocket/media-token.ts's MediaTokens). */
export interface StreamTokenIssuer {
  issue(claims: { sessionId: string; agentId: string }, ttlS: number): Promise<string>;
}

export interface CallSessionOptions {
  store: Store;
  recorder: SessionRecorder;
  tokens: StreamTokenIssuer;
  tokenTtlS: number;
  /** A call whose stream does not start this long after the session opens (`never_connected`). */
  connectWindowMs: number;
}

/**
 * A voice session per phone call (transport `twilio`), inbound or outbound: the same connect
 * window, `session_start` and connection token as the built-in WebSocket sessions
 * (realtime/session-grants.ts). The call's ids are the session's metadata (so `session_start`
 * carries them); an inbound caller's number is its `user_id` unless the agent says otherwise.
 */
export class CallSessions {
  constructor(private readonly o: CallSessionOptions) {}

  /** Opens the session; `base` is the public address Twilio reaches (http(s)://host[/prefix]). */
  async open(agent: StoredAgent, call: PhoneCall, base: URL): Promise<CallStream> {
    const sessionId = newId('session');
    await this.o.store.leases.awaitMedia(sessionId, this.o.connectWindowMs);
    const inbound = call.direction === 'inbound';
    const session = await this.o.recorder.started(agent, {
      id: sessionId,
      agent_id: agent.id,
      type: 'voice',
      transport: 'twilio',
      user_id: inbound ? (agent.phone_caller_id_as_user ? call.from : null) : call.userId,
      metadata: inbound
        ? { direction: 'inbound', call_sid: call.callSid, from: call.from, to: call.to }
        : { direction: 'outbound', to: call.to, from: call.from },
    });
    const token = await this.o.tokens.issue({ sessionId: session.id, agentId: agent.id }, this.o.tokenTtlS);
    return { session_id: session.id, url: mediaStreamUrl(base), parameters: { session_id: session.id, token } };
  }
}

/** `wss://host[/prefix]/telephony/v1/twilio/media` from an http(s) base URL. */
function mediaStreamUrl(base: URL): string {
  const url = new URL(base.toString());
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = url.pathname.replace(/\/$/, '') + twilioMediaPath;
  url.search = '';
  return url.toString();
}
