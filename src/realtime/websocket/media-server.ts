import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { nullIfNotFound } from '../../errors/app-errors.js';
import type { StoredAgent } from '../../schemas/agent.js';
import type { Session } from '../../schemas/session.js';
import type { AttachRefusal, SessionSupervisor } from '../../sessions/supervisor.js';
import type { Store } from '../../store/store.js';
import { MediaTokenError, type MediaClaims, type MediaTokens } from './media-token.js';
import { supportedSampleRates } from './protocol.js';
import { WsTransport } from './ws-transport.js';

export const mediaPath = '/sdk/v1/media';

/** Takes over an HTTP upgrade request for a WebSocket endpoint. */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * The built-in WebSocket media endpoint: `GET /sdk/v1/media?token=<connection_token>&sample_rate=16000`
 * upgraded to a WebSocket. The token names the session and agent; the session must be an active
 * websocket voice session of that agent, not already connected. Refusals close with a 4xxx code
 * and reason after the upgrade, so browsers (which cannot read HTTP upgrade errors) see why.
 */
export class MediaServer {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 });

  constructor(
    private readonly deps: { store: Store; tokens: MediaTokens; supervisor: SessionSupervisor; logger: Logger },
  ) {}

  /** Serves upgrades to `mediaPath`, and to each path of `others` (other transports' endpoints); 404 the rest. */
  attach(server: Server, others: Record<string, UpgradeHandler> = {}): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const other = Object.hasOwn(others, url.pathname) ? others[url.pathname] : undefined;
      if (other !== undefined) {
        other(req, socket, head);
        return;
      }
      if (url.pathname !== mediaPath) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) =>
        this.accept(ws, url).catch((err: unknown) => {
          this.deps.logger.error({ err }, 'media connection failed');
          ws.close(1011, 'internal error');
        }),
      );
    });
  }

  close(): void {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }

  private async accept(ws: WebSocket, url: URL): Promise<void> {
    const refuse = (close: Refusal) => {
      ws.send(JSON.stringify({ type: 'error', code: close.error, message: close.message }));
      ws.close(close.code, close.message.slice(0, 120));
    };
    const rate = Number(url.searchParams.get('sample_rate') ?? 16000);
    if (!(supportedSampleRates as readonly number[]).includes(rate)) {
      refuse({
        code: 4400,
        error: 'bad_sample_rate',
        message: `sample_rate must be one of ${supportedSampleRates.join(', ')}`,
      });
      return;
    }
    const token = url.searchParams.get('token');
    if (token === null || token === '') {
      refuse({ code: 4401, error: 'unauthorized', message: 'missing token query parameter' });
      return;
    }
    let claims: MediaClaims;
    try {
      claims = await this.deps.tokens.verify(token);
    } catch (err) {
      if (!(err instanceof MediaTokenError)) throw err;
      refuse({ code: 4401, error: 'unauthorized', message: err.message });
      return;
    }
    let found: { agent: StoredAgent; session: Session } | Refusal;
    try {
      found = await this.find(claims);
    } catch (err) {
      // Redis unreachable (or timing out) while reading the session or agent: retryable, not a missing session.
      this.deps.logger.error({ err, session_id: claims.sessionId }, 'media connection refused: the store failed');
      refuse(refusals.store_unavailable);
      return;
    }
    if ('code' in found) {
      refuse(found);
      return;
    }
    const transport = new WsTransport(ws, rate);
    const attached = await this.deps.supervisor.attach(found.agent, found.session, transport);
    if (!attached.ok) refuse(refusals[attached.refusal]);
  }

  /** The token's session and its agent, or why the connection is refused; throws when the store fails. */
  private async find(claims: MediaClaims): Promise<{ agent: StoredAgent; session: Session } | Refusal> {
    const session = await this.deps.store.sessions.get(claims.sessionId).catch(nullIfNotFound);
    if (
      session === null ||
      session.agent_id !== claims.agentId ||
      session.type !== 'voice' ||
      session.transport !== 'websocket'
    )
      return refusals.session_not_found;
    if (session.status !== 'active') return refusals.session_ended;
    const agent = await this.deps.store.agents.getStored(session.agent_id).catch(nullIfNotFound);
    if (agent === null) return refusals.agent_not_found;
    return { agent, session };
  }
}

/** A refusal: WebSocket close code, the `error` message's code, and its text (also the close reason). */
interface Refusal {
  code: number;
  error: string;
  message: string;
}

/** Refusals after the token was accepted; the README's close-code table lists them all. */
const refusals = {
  session_not_found: { code: 4404, error: 'session_not_found', message: 'the session of this token does not exist' },
  agent_not_found: { code: 4404, error: 'agent_not_found', message: 'the agent of this session no longer exists' },
  session_ended: { code: 4409, error: 'session_ended', message: 'the session has ended; open a new one' },
  already_connected: {
    code: 4409,
    error: 'already_connected',
    message: 'this session already has a media connection',
  },
  shutting_down: { code: 4503, error: 'shutting_down', message: 'the server is shutting down; open a new session' },
  store_unavailable: {
    code: 4503,
    error: 'store_unavailable',
    message: 'the session store is unreachable; try again shortly',
  },
  failed: { code: 1011, error: 'internal_error', message: 'the session could not be started' },
} satisfies Record<AttachRefusal | 'session_not_found' | 'agent_not_found' | 'store_unavailable', Refusal>;
