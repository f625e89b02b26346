import type { AgentDispatch, Room } from '@livekit/protocol';
import { AgentDispatchClient, RoomServiceClient, SipClient, TwirpError } from 'livekit-server-sdk';
import { AppError } from '../../errors/app-errors.js';
import type { LivekitCredentials } from './tokens.js';

/**
 * LiveKit's server API (Twirp over HTTP) as Parley uses it: list rooms, dispatch this agent. A
 * LiveKit that cannot be reached or times out is 502 `livekit_unreachable`; one that answers with an
 * error is 502 `livekit_error` (its status and message in `details`).
 */
export class LivekitApi {
  private readonly rooms: RoomServiceClient;
  private readonly dispatches: AgentDispatchClient;
  private readonly sip: SipClient;

  constructor(
    creds: LivekitCredentials,
    readonly agentName: string,
    /** Seconds per call, well inside an HTTP client's patience. */
    timeoutS = 5,
  ) {
    const options = { requestTimeout: timeoutS, failover: false };
    const http = creds.url.replace(/^ws(s?):\/\//, 'http$1://');
    this.rooms = new RoomServiceClient(http, creds.apiKey, creds.apiSecret, options);
    this.dispatches = new AgentDispatchClient(http, creds.apiKey, creds.apiSecret, options);
    this.sip = new SipClient(http, creds.apiKey, creds.apiSecret, options);
  }

  listRooms(): Promise<Room[]> {
    return call('ListRooms', () => this.rooms.listRooms());
  }

  /**
   * Transfers a SIP participant (a phone caller) to `to` (a `sip:` or `tel:` URI): LiveKit's
   * TransferSIPParticipant, which resolves once the transfer is done (it waits for the far end to
   * ring and answer: up to 30 s).
   */
  transferSip(room: string, participantIdentity: string, to: string): Promise<void> {
    return call('TransferSIPParticipant', () =>
      this.sip.transferSipParticipant(room, participantIdentity, to, { playDialtone: true }),
    );
  }

  /** An explicit dispatch of this Parley agent to `room` (created by LiveKit when it does not exist). */
  dispatch(room: string, metadata: Record<string, unknown>): Promise<AgentDispatch> {
    return call('CreateDispatch', () =>
      this.dispatches.createDispatch(room, this.agentName, { metadata: JSON.stringify(metadata) }),
    );
  }
}

async function call<T>(method: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof TwirpError) {
      throw new AppError(502, 'livekit_error', `LiveKit answered ${method} with an error: ${err.message}`, {
        livekit_status: err.status,
        livekit_code: err.code ?? null,
      });
    }
    throw new AppError(
      502,
      'livekit_unreachable',
      `LiveKit could not be reached (${method}): ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}
