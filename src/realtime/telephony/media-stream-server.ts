import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { EchoGuard } from '../../audio/echo-guard.js';
import { nullIfNotFound } from '../../errors/app-errors.js';
import type { StoredAgent } from '../../schemas/agent.js';
import type { Session } from '../../schemas/session.js';
import type { AttachRefusal, SessionSupervisor } from '../../sessions/supervisor.js';
import type { Store } from '../../store/store.js';
import { MediaTokenError, type MediaTokens } from '../websocket/media-token.js';
import {
  decodeBase64,
  decodeInbound,
  streamCloseCodes as codes,
  streamFormat,
  type InboundMessage,
  type StartMessage,
} from './media-stream-protocol.js';
import type { CarrierCalls } from '../../telephony/carrier-calls.js';
import { TwilioTransport } from './twilio-transport.js';

/** Messages held while `start` is being checked: 5 s of 20 ms frames. */
const maxHeldMessages = 250;

/** A refusal or a protocol failure: the close code and its reason. */
interface Closing {
  code: number;
  reason: string;
}

/**
 * `GET /telephony/v1/twilio/media`: the WebSocket Twilio opens for `<Connect><Stream>`. Nothing is
 * trusted before `start`: its custom parameters `session_id` and `token` (which the voice webhook
 * put in the TwiML) must name an active, unconnected `twilio` session of a live agent; then the
 * stream is attached to the session through the supervisor like every other transport. Any
 * malformed message closes the stream with a code (media-stream-protocol.ts) and a log line.
 */
export class TwilioMediaServer {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });

  constructor(
    private readonly deps: {
      store: Store;
      tokens: MediaTokens;
      supervisor: SessionSupervisor;
      logger: Logger;
      /** False without TWILIO_AUTH_TOKEN: streams are refused (4503) like the webhook (503). */
      configured: boolean;
      /** The carrier's REST API (TWILIO_ACCOUNT_SID set): hang-up and transfer of each call. */
      carrier?: CarrierCalls | undefined;
      /** PARLEY_TWILIO_ECHO_GUARD (default true): each call's transport mutes the agent's own echo. */
      echoGuard?: boolean;
    },
  ) {}

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  close(): void {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }

  private accept(ws: WebSocket): void {
    const log = this.deps.logger.child({ transport: 'twilio' });
    if (!this.deps.configured) {
      ws.close(codes.unavailable, 'telephony is not configured (TWILIO_AUTH_TOKEN)');
      return;
    }
    let transport: TwilioTransport | null = null;
    let starting = false;
    const heldMessages: [InboundMessage, Buffer | null][] = [];
    const fail = ({ code, reason }: Closing) => {
      log.warn({ code, reason, stream_sid: transport?.streamSid, call_sid: transport?.callSid }, 'media stream closed');
      ws.close(code, reason.slice(0, 120));
      transport?.finish();
    };
    const onMessage = (message: InboundMessage): void => {
      if (message.event === 'connected') return;
      if (message.event === 'start') {
        if (starting) return fail({ code: codes.policyViolation, reason: 'a second start message' });
        starting = true;
        void this.start(ws, message).then(
          (started) => {
            if ('code' in started) fail(started);
            else {
              transport = started;
              // The caller hung up while the session was being looked up: end it now.
              if (ws.readyState !== ws.OPEN) started.finish();
              else for (const [held, audio] of heldMessages.splice(0)) deliver(started, held, audio);
            }
          },
          (err: unknown) => {
            log.error({ err }, 'media stream could not start');
            fail({ code: codes.internal, reason: 'internal error' });
          },
        );
        return;
      }
      if (!starting) return fail({ code: codes.policyViolation, reason: `${message.event} before start` });
      const audio = message.event === 'media' ? decodeBase64(message.media.payload) : null;
      if (message.event === 'media' && audio === null)
        return fail({ code: codes.invalidData, reason: 'media.payload is not base64' });
      if (transport !== null) return deliver(transport, message, audio);
      // Messages racing the start's lookups wait for the session (a bounded few seconds' worth), but a stop.
      if (message.event === 'stop') ws.close(codes.normal, 'call ended');
      else if (heldMessages.length < maxHeldMessages) heldMessages.push([message, audio]);
    };
    const deliver = (to: TwilioTransport, message: InboundMessage, audio: Buffer | null): void => {
      if (message.event === 'stop') {
        to.finish();
        ws.close(codes.normal, 'call ended');
      } else if (message.event === 'mark') to.receiveMark(message.mark.name);
      else if (message.event === 'dtmf') to.receiveDigit(message.dtmf.digit);
      else if (audio !== null) to.receiveAudio(audio);
    };
    ws.on('message', (data, isBinary) => {
      if (isBinary) return fail({ code: codes.invalidData, reason: 'binary messages are not part of the protocol' });
      const decoded = decodeInbound(String(data));
      if (!decoded.ok) return fail(decoded);
      onMessage(decoded.message);
    });
    ws.on('close', () => transport?.finish());
    ws.on('error', (err) => {
      log.warn({ err }, 'media stream socket error');
      transport?.finish();
    });
  }

  /** Checks the start message and attaches its session: the transport, or why the stream is closed. */
  private async start(ws: WebSocket, message: StartMessage): Promise<TwilioTransport | Closing> {
    const { mediaFormat, customParameters, callSid, streamSid } = message.start;
    if (
      mediaFormat.encoding !== streamFormat.encoding ||
      mediaFormat.sampleRate !== streamFormat.sampleRate ||
      mediaFormat.channels !== streamFormat.channels
    )
      return { code: codes.invalidData, reason: `mediaFormat must be audio/x-mulaw, 8000 Hz, 1 channel` };
    const token = customParameters['token'];
    const sessionId = customParameters['session_id'];
    if (token === undefined || sessionId === undefined)
      return { code: codes.unauthorized, reason: 'start lacks the session_id and token parameters' };
    let claims;
    try {
      claims = await this.deps.tokens.verify(token);
    } catch (err) {
      if (!(err instanceof MediaTokenError)) throw err;
      return { code: codes.unauthorized, reason: err.message };
    }
    if (claims.sessionId !== sessionId) return { code: codes.unauthorized, reason: 'token is for another session' };
    let found: { agent: StoredAgent; session: Session } | Closing;
    try {
      found = await this.find(claims.sessionId, claims.agentId, callSid);
    } catch (err) {
      this.deps.logger.error({ err, session_id: sessionId }, 'media stream refused: the store failed');
      return { code: codes.unavailable, reason: 'the session store is unreachable' };
    }
    if ('code' in found) return found;
    const { carrier, logger } = this.deps;
    const control =
      carrier === undefined
        ? undefined
        : {
            calls: carrier,
            failed: (_what: 'hang_up', err: unknown) =>
              logger.warn({ err, call_sid: callSid, session_id: sessionId }, 'the carrier did not hang up the call'),
          };
    const echo = this.deps.echoGuard === false ? null : new EchoGuard({ sampleRate: streamFormat.sampleRate });
    const transport = new TwilioTransport(ws, streamSid, callSid, control, echo);
    const attached = await this.deps.supervisor.attach(found.agent, found.session, transport);
    if (!attached.ok) return refusals[attached.refusal];
    return transport;
  }

  private async find(sessionId: string, agentId: string, callSid: string) {
    const session = await this.deps.store.sessions.get(sessionId).catch(nullIfNotFound);
    if (
      session === null ||
      session.agent_id !== agentId ||
      session.transport !== 'twilio' ||
      // An inbound call's session names its call; an outbound one's is created before the call has a sid.
      (session.metadata['call_sid'] !== undefined && session.metadata['call_sid'] !== callSid)
    )
      return { code: codes.notFound, reason: 'no such call session' };
    if (session.status !== 'active') return { code: codes.conflict, reason: 'the session has ended' };
    const agent = await this.deps.store.agents.getStored(agentId).catch(nullIfNotFound);
    if (agent === null) return { code: codes.notFound, reason: 'the agent no longer exists' };
    return { agent, session };
  }
}

const refusals: Record<AttachRefusal, Closing> = {
  already_connected: { code: codes.conflict, reason: 'this session already has a media stream' },
  session_ended: { code: codes.conflict, reason: 'the session has ended' },
  shutting_down: { code: codes.unavailable, reason: 'the server is shutting down' },
  store_unavailable: { code: codes.unavailable, reason: 'the session store is unreachable' },
  failed: { code: codes.internal, reason: 'the session could not be started' },
};
