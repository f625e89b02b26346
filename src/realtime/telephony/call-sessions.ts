import type { StoredAgent } from '../../records/agent.js';
import { newId } from '../../ids.js';
import type { SessionRecorder } from '../../recording/turn-recorder.js';
import type { Store } from '../../store/store.js';
import type { MediaTokens } from '../websocket/media-token.js';
import { twilioMediaPath } from './media-stream-server.js';

/** The ids of one phone call, from Twilio's voice webhook. */
export interface CallIds {
  callSid: string;
  /** The caller's number (E.164, or `anonymous` and the like when withheld). */
  from: string;
  /** The number called: the agent's. */
  to: string;
}

export interface CallStream {
  session_id: string;
  /** The `wss://…/telephony/v1/twilio/media` URL of `<Stream>`. */
  url: string;
  /** Custom parameters of `<Stream>`, returned in the stream's `start`: `session_id` and `token`. */
  parameters: { session_id: string; token: string };
}

export interface CallSessionOptions {
  store: Store;
  recorder: SessionRecorder;
  mediaTokens: MediaTokens;
  tokenTtlS: number;
  /** A call whose stream does not start this long after the webhook ends (`never_connected`). */
  connectWindowMs: number;
}

/**
 * A voice session per phone call (transport `twilio`), opened when Twilio's voice webhook reaches
 * Parley: the same connect window, `session_start` and connection token as the built-in WebSocket
 * sessions (session-grants.ts); the call's ids are the session's metadata (so `session_start`
 * carries them) and the caller's number its `user_id` unless the agent says otherwise.
 */
export class CallSessions {
  constructor(private readonly o: CallSessionOptions) {}

  /** Opens the session; `base` is the public address Twilio reached (http(s)://host[/prefix]). */
  async open(agent: StoredAgent, call: CallIds, base: URL): Promise<CallStream> {
    const sessionId = newId('session');
    await this.o.store.leases.awaitMedia(sessionId, this.o.connectWindowMs);
    const session = await this.o.recorder.started(agent, {
      id: sessionId,
      agent_id: agent.id,
      type: 'voice',
      transport: 'twilio',
      user_id: agent.phone_caller_id_as_user ? call.from : null,
      metadata: { direction: 'inbound', call_sid: call.callSid, from: call.from, to: call.to },
    });
    const token = await this.o.mediaTokens.issue({ sessionId: session.id, agentId: agent.id }, this.o.tokenTtlS);
    const url = new URL(base.toString());
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.pathname = url.pathname.replace(/\/$/, '') + twilioMediaPath;
    url.search = '';
    return { session_id: session.id, url: url.toString(), parameters: { session_id: session.id, token } };
  }
}
