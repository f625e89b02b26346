import { newId } from '../../ids.js';
import type { StoredAgent } from '../../records/agent.js';
import type { SessionRecorder } from '../../recording/turn-recorder.js';
import type { Store } from '../../store/store.js';
import type { TwilioRestClient } from './rest-client.js';
import { streamTwiml } from './rest-twiml.js';

/**
 * Outbound phone calls (POST /admin/v1/agents/{id}/calls): a voice session opened the way an
 * inbound call's is (connect window, `session_start`, a media token), then Twilio asked to place
 * the call with TwiML that connects it to Parley's media WebSocket, naming the session and token
 * as the stream's custom parameters. A call the carrier refuses ends its session at once (`error`).
 */

/** Parley's Twilio Media Streams endpoint, relative to PARLEY_PUBLIC_URL. */
export const twilioMediaPath = '/telephony/v1/twilio/media';

/** Signs the media token the stream presents (realtime/websocket/media-token.ts's MediaTokens). */
export interface StreamTokenIssuer {
  issue(claims: { sessionId: string; agentId: string }, ttlS: number): Promise<string>;
}

export interface OutboundCallOptions {
  store: Store;
  recorder: SessionRecorder;
  tokens: StreamTokenIssuer;
  carrier: TwilioRestClient;
  /** PARLEY_PUBLIC_URL: where Twilio reaches Parley; else the request's origin. */
  publicUrl: string | undefined;
  tokenTtlS: number;
  connectWindowMs: number;
}

export interface OutboundCallRequest {
  to: string;
  from: string;
  userId: string | null;
}

export interface PlacedCall {
  callSid: string;
  sessionId: string;
  /** Twilio's status for the new call (`queued`). */
  status: string;
}

export class OutboundCalls {
  constructor(private readonly o: OutboundCallOptions) {}

  async place(agent: StoredAgent, request: OutboundCallRequest, origin: string): Promise<PlacedCall> {
    const streamUrl = mediaStreamUrl(this.o.publicUrl ?? origin);
    const sessionId = newId('session');
    await this.o.store.leases.awaitMedia(sessionId, this.o.connectWindowMs);
    await this.o.recorder.started(agent, {
      id: sessionId,
      agent_id: agent.id,
      type: 'voice',
      transport: 'twilio',
      user_id: request.userId,
      metadata: { direction: 'outbound', to: request.to, from: request.from },
    });
    const token = await this.o.tokens.issue({ sessionId, agentId: agent.id }, this.o.tokenTtlS);
    const twiml = streamTwiml(streamUrl, { session_id: sessionId, token });
    try {
      // Ringing ends before the connect window does, so an answered call finds its session open.
      const ringTimeoutS = Math.min(60, Math.max(5, Math.floor(this.o.connectWindowMs / 1000) - 10));
      const call = await this.o.carrier.createCall({ to: request.to, from: request.from, twiml, ringTimeoutS });
      return { callSid: call.sid, sessionId, status: call.status };
    } catch (err) {
      // No call, no media: the session ends now rather than at the connect window.
      await this.o.recorder.ended(agent, sessionId, 'error', {
        error: `carrier_error: ${err instanceof Error ? err.message : String(err)}`,
        session_type: 'voice',
      });
      throw err;
    }
  }
}

/** `wss://host/telephony/v1/twilio/media` from an http(s) base URL. */
function mediaStreamUrl(base: string): string {
  const url = new URL(base);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = url.pathname.replace(/\/$/, '') + twilioMediaPath;
  url.search = '';
  return url.toString();
}
