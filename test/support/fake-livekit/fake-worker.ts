import {
  JobStatus,
  ServerInfo,
  ServerMessage,
  WorkerMessage,
  WorkerStatus,
  type Job,
  type RegisterWorkerRequest,
} from '@livekit/protocol';
import type { PartialMessage } from '@bufbuild/protobuf';
import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';

/** What a worker connection needs of the fake server: its jobs, and to hear that the worker went away. */
export interface FakeWorkerServer {
  readonly jobs: Map<string, FakeJob>;
  workerGone(worker: FakeWorker): void;
}

/** One worker connection as the fake server sees it. */
export class FakeWorker {
  id: string | null = null;
  agentName = '';
  registration: RegisterWorkerRequest | undefined;
  status: WorkerStatus = WorkerStatus.WS_AVAILABLE;
  load = 0;
  /** Every status report received (status, load, job count), in order. */
  readonly reports: { status: WorkerStatus; load: number; jobCount: number; at: number }[] = [];
  open = true;
  private readonly answers = new Map<string, (answer: AvailabilityAnswer) => void>();

  constructor(
    readonly socket: WebSocket,
    private readonly server: FakeWorkerServer,
  ) {
    socket.on('message', (data: Buffer) => this.onMessage(WorkerMessage.fromBinary(new Uint8Array(data))));
    socket.on('close', () => {
      this.open = false;
      // An offer this worker will never answer is a refusal.
      for (const answer of this.answers.values())
        answer({ available: false, participantIdentity: '', participantName: '', participantAttributes: {} });
      this.answers.clear();
      server.workerGone(this);
    });
    socket.on('error', () => (this.open = false)); // a worker that went away mid-write: it is simply gone
  }

  send(message: PartialMessage<ServerMessage>['message']): void {
    if (this.open) this.socket.send(new ServerMessage({ message }).toBinary());
  }

  offer(job: Job, resuming = false): Promise<AvailabilityAnswer> {
    return new Promise((resolve) => {
      if (!this.open)
        return resolve({ available: false, participantIdentity: '', participantName: '', participantAttributes: {} });
      this.answers.set(job.id, resolve);
      this.send({ case: 'availability', value: { job, resuming } });
    });
  }

  private onMessage(msg: WorkerMessage): void {
    switch (msg.message.case) {
      case 'register':
        this.registration = msg.message.value;
        this.agentName = msg.message.value.agentName;
        this.id = `AW_${randomBytes(6).toString('hex')}`;
        this.send({
          case: 'register',
          value: { workerId: this.id, serverInfo: new ServerInfo({ version: 'fake', agentProtocol: 1 }) },
        });
        break;
      case 'availability': {
        const { jobId, available, participantIdentity, participantName, participantAttributes } = msg.message.value;
        this.answers.get(jobId)?.({ available, participantIdentity, participantName, participantAttributes });
        this.answers.delete(jobId);
        break;
      }
      case 'updateWorker': {
        const v = msg.message.value;
        this.status = v.status ?? this.status;
        this.load = v.load;
        this.reports.push({ status: this.status, load: v.load, jobCount: v.jobCount, at: Date.now() });
        break;
      }
      case 'updateJob': {
        const job = this.server.jobs.get(msg.message.value.jobId);
        job?.statuses.push(msg.message.value.status);
        if (msg.message.value.error !== '') job?.errors.push(msg.message.value.error);
        break;
      }
      default:
        break;
    }
  }
}

/** A job as the fake server keeps it: where it runs, every offer made, what its worker reported. */
export interface FakeJob {
  job: Job;
  room: string;
  /** The worker running it now (null: none took it, or its worker went away and nobody took it again). */
  workerId: string | null;
  /** Every availability request sent for it, in order. */
  offers: { workerId: string; resuming: boolean }[];
  /** After its worker went away: the worker that took it again (null: none did). */
  resumedBy?: string | null;
  statuses: JobStatus[];
  errors: string[];
}

export interface AvailabilityAnswer {
  available: boolean;
  participantIdentity: string;
  participantName: string;
  participantAttributes: Record<string, string>;
}
