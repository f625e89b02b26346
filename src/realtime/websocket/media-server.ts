import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import type { SessionSupervisor } from '../../sessions/supervisor.js';
import type { Store } from '../../store/store.js';
import { MediaTokenError, type MediaTokens } from './media-token.js';
import { supportedSampleRates } from './protocol.js';
import { WsTransport } from './ws-transport.js';

export const mediaPath = '/sdk/v1/media';

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

  attach(server: Server): void {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname !== mediaPath) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => void this.accept(ws, url));
    });
  }

  close(): void {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }

  private async accept(ws: WebSocket, url: URL): Promise<void> {
    const refuse = (code: number, error: string, message: string) => {
      ws.send(JSON.stringify({ type: 'error', code: error, message }));
      ws.close(code, message.slice(0, 120));
    };
    const rate = Number(url.searchParams.get('sample_rate') ?? 16000);
    if (!(supportedSampleRates as readonly number[]).includes(rate)) {
      refuse(4400, 'bad_sample_rate', `sample_rate must be one of ${supportedSampleRates.join(', ')}`);
      return;
    }
    const token = url.searchParams.get('token');
    if (token === null || token === '') {
      refuse(4401, 'unauthorized', 'missing token query parameter');
      return;
    }
    try {
      const claims = await this.deps.tokens.verify(token);
      const session = await this.deps.store.sessions.get(claims.sessionId).catch(() => null);
      if (
        session === null ||
        session.agent_id !== claims.agentId ||
        session.type !== 'voice' ||
        session.transport !== 'websocket'
      ) {
        refuse(4404, 'session_not_found', 'the session of this token does not exist');
        return;
      }
      if (session.status !== 'active') {
        refuse(4409, 'session_ended', 'the session has ended; open a new one');
        return;
      }
      const agent = await this.deps.store.agents.getStored(session.agent_id).catch(() => null);
      if (agent === null) {
        refuse(4404, 'agent_not_found', 'the agent of this session no longer exists');
        return;
      }
      if (this.deps.supervisor.has(session.id)) {
        refuse(4409, 'already_connected', 'this session already has a media connection');
        return;
      }
      const transport = new WsTransport(ws, rate);
      if (!(await this.deps.supervisor.attach(agent, session, transport))) {
        refuse(4503, 'unavailable', 'the server is shutting down');
      }
    } catch (err) {
      if (err instanceof MediaTokenError) {
        refuse(4401, 'unauthorized', err.message);
        return;
      }
      this.deps.logger.error({ err }, 'media connection failed');
      refuse(1011, 'internal_error', 'internal error');
    }
  }
}
