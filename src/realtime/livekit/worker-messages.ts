import {
  JobType,
  type JobStatus,
  ParticipantPermission,
  ServerMessage,
  WorkerMessage,
  type WorkerStatus,
} from '@livekit/protocol';
import type { RawData } from 'ws';
import { lk } from './livekit-transport.js';

/** The agent-worker protocol's messages Parley sends, built from `@livekit/protocol`'s generated types. */

/** First message on every connection: this worker's agent name, room jobs, the agent participant's permissions. */
export function registerMessage(agentName: string, version: string): WorkerMessage {
  return new WorkerMessage({
    message: {
      case: 'register',
      value: {
        type: JobType.JT_ROOM,
        agentName,
        version,
        allowedPermissions: new ParticipantPermission({
          canPublish: true,
          canSubscribe: true,
          canPublishData: true,
          canUpdateMetadata: true,
          agent: true,
        }),
      },
    },
  });
}

/** The answer to an availability request; an accepted job joins as `agent-<job id>`. */
export function availabilityMessage(jobId: string, available: boolean, agentName: string): WorkerMessage {
  return new WorkerMessage({
    message: {
      case: 'availability',
      value: available
        ? {
            jobId,
            available: true,
            participantIdentity: `agent-${jobId}`,
            participantName: agentName,
            participantAttributes: { [lk.agentName]: agentName, [lk.agentState]: 'initializing' },
          }
        : { jobId, available: false },
    },
  });
}

export function statusMessage(status: WorkerStatus, load: number, jobCount: number): WorkerMessage {
  return new WorkerMessage({ message: { case: 'updateWorker', value: { status, load, jobCount } } });
}

export function jobStatusMessage(jobId: string, status: JobStatus, error: string): WorkerMessage {
  return new WorkerMessage({ message: { case: 'updateJob', value: { jobId, status, error } } });
}

/** A binary frame as a ServerMessage; undefined for text frames or bytes that do not decode. */
export function decodeServerMessage(data: RawData, isBinary: boolean): ServerMessage | undefined {
  if (!isBinary) return undefined;
  const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer);
  try {
    return ServerMessage.fromBinary(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch {
    return undefined; // reported by the caller as a message that is not a ServerMessage
  }
}
