import {
  AgentDispatch,
  CreateAgentDispatchRequest,
  Job,
  JobStatus,
  JobType,
  ListRoomsRequest,
  ListRoomsResponse,
  Room,
  TransferSIPParticipantRequest,
  WorkerStatus,
} from '@livekit/protocol';
import { AccessToken, TokenVerifier, type ClaimGrants } from 'livekit-server-sdk';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { FakeWorker, type FakeJob } from './fake-worker.js';

export { FakeWorker, type AvailabilityAnswer, type FakeJob } from './fake-worker.js';

/**
 * A LiveKit server as far as Parley sees one, for tests (no real LiveKit can run here):
 * - the agent-worker WebSocket at `/agent`: protobuf `WorkerMessage` in, `ServerMessage` out,
 *   `Authorization: Bearer <JWT>` verified with livekit-server-sdk's TokenVerifier (grant `agent`);
 * - the Twirp API over HTTP with JSON bodies (RoomService.ListRooms, AgentDispatchService.CreateDispatch,
 *   SIP.TransferSIPParticipant), each checking the grant LiveKit requires.
 * Jobs are offered the way LiveKit does: an availability request to a registered worker of the agent
 * name that reports itself available, the next one on refusal, then an assignment with a room token.
 */
export class FakeLivekit {
  readonly workers: FakeWorker[] = [];
  readonly rooms = new Map<string, Room>();
  /** Every job offered: its id, the worker that took it (or null), and status updates received. */
  readonly jobs = new Map<string, FakeJob>();
  /** Requests that failed authentication, with why. */
  readonly refused: string[] = [];
  /** Every SIP transfer asked for (TransferSIPParticipant), authorised or not. */
  readonly transfers: { room: string; participantIdentity: string; transferTo: string; authorized: boolean }[] = [];
  /** How the next transfers are answered: null transfers (200 `{}`), else this Twirp error. */
  transferFailure: { status: number; code: string; msg: string } | null = null;
  /** Runs when an authorised transfer arrives, before it is answered (e.g. the caller leaves the room). */
  onTransfer: (() => void) | null = null;
  /**
   * When set, a room join (rtc-node's signal connection: any WebSocket path but `/agent`) is held
   * unanswered, as a slow LiveKit would: the job stays "joining" in the process that took it.
   */
  holdRoomJoins = false;
  /** Room joins held so far (their sockets are destroyed on stop). */
  readonly heldJoins: Duplex[] = [];
  private server!: Server;
  private wss!: WebSocketServer;
  private port = 0;

  private constructor(
    readonly apiKey: string,
    readonly apiSecret: string,
  ) {}

  static async start(
    apiKey = 'APIfakelivekit',
    apiSecret = 'fake-livekit-secret-0123456789abcdef',
  ): Promise<FakeLivekit> {
    const fake = new FakeLivekit(apiKey, apiSecret);
    await fake.listen();
    return fake;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  get env(): Record<string, string> {
    return { LIVEKIT_URL: this.url, LIVEKIT_API_KEY: this.apiKey, LIVEKIT_API_SECRET: this.apiSecret };
  }

  /** Workers currently connected and registered. */
  registered(agentName?: string): FakeWorker[] {
    return this.workers.filter(
      (w) => w.open && w.id !== null && (agentName === undefined || w.agentName === agentName),
    );
  }

  /** Stops the server, dropping every connection (a LiveKit outage). */
  async stop(): Promise<void> {
    for (const w of this.workers) w.socket.terminate();
    for (const socket of this.heldJoins.splice(0)) socket.destroy();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Starts again on the same port. */
  async restart(): Promise<void> {
    await this.listen(this.port);
  }

  /**
   * Dispatches `agentName` to `room` as LiveKit would: offers the job to available workers (least
   * loaded first) until one accepts, then assigns it. Resolves with the job and the worker that took it.
   */
  async dispatch(room: string, agentName: string, metadata: string): Promise<{ job: Job; worker: FakeWorker | null }> {
    const info = this.ensureRoom(room);
    const job = new Job({
      id: `AJ_${randomBytes(6).toString('hex')}`,
      dispatchId: `AD_${randomBytes(6).toString('hex')}`,
      type: JobType.JT_ROOM,
      room: info,
      metadata,
      agentName,
    });
    this.jobs.set(job.id, { job, room, workerId: null, statuses: [], errors: [], offers: [] });
    return { job, worker: await this.place(job, false) };
  }

  /**
   * Offers `job` to available workers (least loaded first) until one accepts, then assigns it with
   * a room token; `resuming`: the job's worker went away and it is offered again (LiveKit's
   * AvailabilityRequest.resuming: "previously assigned to another worker but migrated, e.g. worker
   * failure"). Resolves with the worker that took it, or null.
   */
  private async place(job: Job, resuming: boolean): Promise<FakeWorker | null> {
    const record = this.jobs.get(job.id)!;
    const candidates = this.registered(job.agentName)
      .filter((w) => w.status === WorkerStatus.WS_AVAILABLE)
      .sort((a, b) => a.load - b.load);
    for (const worker of candidates) {
      record.offers.push({ workerId: worker.id!, resuming });
      const answer = await worker.offer(job, resuming);
      if (!answer.available) continue;
      const token = new AccessToken(this.apiKey, this.apiSecret, {
        identity: answer.participantIdentity,
        name: answer.participantName,
        attributes: answer.participantAttributes,
        ttl: 600,
      });
      token.addGrant({
        room: record.room,
        roomJoin: true,
        canPublish: true,
        canSubscribe: true,
        canPublishData: true,
        agent: true,
      });
      worker.send({ case: 'assignment', value: { job, url: this.url, token: await token.toJwt() } });
      record.workerId = worker.id;
      return worker;
    }
    record.workerId = null;
    return null;
  }

  /**
   * A worker's connection closed (its process died, or it lost the network): as the LiveKit server
   * does, every job it was running that had not ended (no JS_SUCCESS/JS_FAILED) is offered again,
   * with `resuming`, to the workers still registered.
   */
  workerGone(worker: FakeWorker): void {
    for (const record of this.jobs.values()) {
      if (worker.id === null || record.workerId !== worker.id) continue;
      if (record.statuses.some((s) => s === JobStatus.JS_SUCCESS || s === JobStatus.JS_FAILED)) continue;
      const job = record.job;
      record.workerId = null;
      void this.place(job, true).then((taken) => (record.resumedBy = taken?.id ?? null));
    }
  }

  /** LiveKit ends a job (the room was deleted, the dispatch removed). */
  terminate(jobId: string): void {
    const workerId = this.jobs.get(jobId)?.workerId;
    this.workers.find((w) => w.id === workerId && w.open)?.send({ case: 'termination', value: { jobId } });
  }

  private ensureRoom(name: string): Room {
    let room = this.rooms.get(name);
    if (room === undefined) {
      const now = Date.now();
      room = new Room({
        sid: `RM_${randomBytes(6).toString('hex')}`,
        name,
        creationTime: BigInt(Math.floor(now / 1000)),
        creationTimeMs: BigInt(now),
        numParticipants: 0,
      });
      this.rooms.set(name, room);
    }
    return room;
  }

  private async listen(port = 0): Promise<void> {
    this.server = createServer((req, res) => void this.onHttp(req, res));
    this.wss = new WebSocketServer({ noServer: true });
    this.server.on('upgrade', (req, socket, head) => {
      socket.on('error', () => socket.destroy()); // a client that hung up during the handshake
      if (this.holdRoomJoins && new URL(req.url ?? '/', 'http://x').pathname !== '/agent') {
        this.heldJoins.push(socket);
        return;
      }
      void this.authorize(req.headers.authorization, (g) => g.video?.agent === true).then((ok) => {
        if (!ok || new URL(req.url ?? '/', 'http://x').pathname !== '/agent') {
          socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
          return;
        }
        this.wss.handleUpgrade(req, socket, head, (ws) => this.workers.push(new FakeWorker(ws, this)));
      });
    });
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  private async authorize(header: string | undefined, allowed: (grants: ClaimGrants) => boolean): Promise<boolean> {
    if (header?.startsWith('Bearer ') !== true) {
      this.refused.push('no bearer token');
      return false;
    }
    try {
      const grants = await new TokenVerifier(this.apiKey, this.apiSecret).verify(header.slice(7));
      if (allowed(grants)) return true;
      this.refused.push(`missing grant: ${JSON.stringify(grants.video ?? {})}`);
    } catch (err) {
      this.refused.push(`bad token: ${(err as Error).message}`);
    }
    return false;
  }

  private async onHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    const twirp = (status: number, payload: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    const fail = (status: number, code: string, msg: string) => twirp(status, { code, msg });
    if (req.url === '/twirp/livekit.RoomService/ListRooms') {
      if (!(await this.authorize(req.headers.authorization, (g) => g.video?.roomList === true)))
        return fail(401, 'unauthenticated', 'permissions denied');
      const { names } = ListRoomsRequest.fromJson(body as never);
      const rooms = [...this.rooms.values()].filter((r) => names.length === 0 || names.includes(r.name));
      return twirp(200, new ListRoomsResponse({ rooms }).toJson());
    }
    if (req.url === '/twirp/livekit.AgentDispatchService/CreateDispatch') {
      const request = CreateAgentDispatchRequest.fromJson(body as never);
      const authorized = await this.authorize(
        req.headers.authorization,
        (g) => g.video?.roomAdmin === true && g.video.room === request.room,
      );
      if (!authorized) return fail(401, 'unauthenticated', 'permissions denied');
      const { job } = await this.dispatch(request.room, request.agentName, request.metadata);
      const dispatch = new AgentDispatch({
        id: job.dispatchId,
        agentName: request.agentName,
        room: request.room,
        metadata: request.metadata,
      });
      return twirp(200, dispatch.toJson());
    }
    if (req.url === '/twirp/livekit.SIP/TransferSIPParticipant') {
      const request = TransferSIPParticipantRequest.fromJson(body as never);
      // LiveKit requires room admin on the room and the SIP `call` grant.
      const authorized = await this.authorize(
        req.headers.authorization,
        (g) => g.video?.roomAdmin === true && g.video.room === request.roomName && g.sip?.call === true,
      );
      this.transfers.push({
        room: request.roomName,
        participantIdentity: request.participantIdentity,
        transferTo: request.transferTo,
        authorized,
      });
      if (!authorized) return fail(401, 'unauthenticated', 'permissions denied');
      this.onTransfer?.();
      if (this.transferFailure !== null)
        return fail(this.transferFailure.status, this.transferFailure.code, this.transferFailure.msg);
      return twirp(200, {});
    }
    fail(404, 'bad_route', `no handler for ${req.url}`);
  }
}
