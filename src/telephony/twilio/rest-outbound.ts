import type { StoredAgent } from '../../schemas/agent.js';
import type { SessionRecorder } from '../../session-writes/turn-recorder.js';
import type { CallSessions } from '../call-sessions.js';
import type { TwilioRestClient } from './rest-client.js';
import { streamTwiml } from './twiml.js';

/**
 * Outbound phone calls (POST /admin/v1/agents/{id}/calls): a voice session opened as an inbound
 * call's is (CallSessions: connect window, `session_start`, a media token), then Twilio asked to
 * place the call with TwiML that connects it to Parley's media WebSocket, naming the session and
 * token as the stream's custom parameters. A call the carrier refuses ends its session at once
 * (`error`).
 */

export interface OutboundCallOptions {
  sessions: CallSessions;
  recorder: SessionRecorder;
  carrier: TwilioRestClient;
  /** PARLEY_PUBLIC_URL: where Twilio reaches Parley; else the request's origin. */
  publicUrl: string | undefined;
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
    const base = new URL(this.o.publicUrl ?? origin);
    const stream = await this.o.sessions.open(agent, { direction: 'outbound', ...request }, base);
    const twiml = streamTwiml(stream.url, stream.parameters);
    try {
      // Ringing ends before the connect window does, so an answered call finds its session open.
      const ringTimeoutS = Math.min(60, Math.max(5, Math.floor(this.o.connectWindowMs / 1000) - 10));
      const call = await this.o.carrier.createCall({ to: request.to, from: request.from, twiml, ringTimeoutS });
      return { callSid: call.sid, sessionId: stream.session_id, status: call.status };
    } catch (err) {
      // No call, no media: the session ends now rather than at the connect window.
      await this.o.recorder.ended(agent, stream.session_id, 'error', {
        error: `carrier_error: ${err instanceof Error ? err.message : String(err)}`,
        session_type: 'voice',
      });
      throw err;
    }
  }
}
