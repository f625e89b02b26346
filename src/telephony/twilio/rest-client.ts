import type { CarrierCalls } from '../carrier-calls.js';
import { CarrierError, readTwilioError } from './rest-error.js';
import { dialTwiml } from './twiml.js';

/** Twilio's REST API (2010-04-01) for the calls Parley places and controls; no SDK, just fetch. */

export interface TwilioRestOptions {
  /** `AC…`: the account whose calls these are. */
  accountSid: string;
  authToken: string;
  /** PARLEY_TWILIO_API_BASE_URL: `https://api.twilio.com`, or a fake's address in tests. */
  baseUrl: string;
  /** Each request's limit, in milliseconds (default 10 s). */
  timeoutMs?: number;
  /** For tests; default the global fetch. */
  fetch?: typeof fetch;
}

/** An outbound call: `twiml` (the document to run when answered) or `url` (where to fetch it). */
export interface CreateCallRequest {
  to: string;
  from: string;
  twiml?: string;
  url?: string;
  /** How long the phone rings before Twilio gives up, in seconds (Twilio: 5–600, default 60). */
  ringTimeoutS?: number;
  /** Where Twilio POSTs the call's progress (initiated, ringing, answered, completed). */
  statusCallback?: string;
}

/** The fields of Twilio's call resource that Parley reads. */
export interface TwilioCall {
  /** `CA…` */
  sid: string;
  /** `queued`, `ringing`, `in-progress`, `completed`, … */
  status: string;
}

export const defaultTwilioTimeoutMs = 10_000;

export class TwilioRestClient implements CarrierCalls {
  private readonly authorization: string;
  private readonly base: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly o: TwilioRestOptions) {
    this.authorization = `Basic ${Buffer.from(`${o.accountSid}:${o.authToken}`).toString('base64')}`;
    this.base = `${o.baseUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(o.accountSid)}`;
    this.fetch = o.fetch ?? fetch;
  }

  /** POST …/Calls.json: places a call. */
  async createCall(request: CreateCallRequest): Promise<TwilioCall> {
    if ((request.twiml === undefined) === (request.url === undefined))
      throw new TypeError('createCall takes exactly one of twiml and url');
    const form = new URLSearchParams({ To: request.to, From: request.from });
    if (request.twiml !== undefined) form.set('Twiml', request.twiml);
    if (request.url !== undefined) form.set('Url', request.url);
    if (request.ringTimeoutS !== undefined) form.set('Timeout', String(request.ringTimeoutS));
    if (request.statusCallback !== undefined) {
      form.set('StatusCallback', request.statusCallback);
      form.set('StatusCallbackMethod', 'POST');
      for (const event of ['initiated', 'ringing', 'answered', 'completed']) form.append('StatusCallbackEvent', event);
    }
    return this.post('/Calls.json', form);
  }

  /** POST …/Calls/{sid}.json with `Status=completed`: ends a call in progress. */
  async hangUp(callSid: string): Promise<void> {
    await this.post(callPath(callSid), new URLSearchParams({ Status: 'completed' }));
  }

  /** POST …/Calls/{sid}.json with new TwiML (`<Response><Dial>…</Dial></Response>`). */
  async redirect(callSid: string, twiml: string): Promise<void> {
    await this.post(callPath(callSid), new URLSearchParams({ Twiml: twiml }));
  }

  /** `<Dial><Number>` for an E.164 number, `<Dial><Sip>` for a SIP URI. */
  async transfer(callSid: string, to: string): Promise<void> {
    await this.redirect(callSid, dialTwiml(to));
  }

  private async post(path: string, form: URLSearchParams): Promise<TwilioCall> {
    const what = `POST ${path}`;
    const timeoutMs = this.o.timeoutMs ?? defaultTwilioTimeoutMs;
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(this.base + path, {
        method: 'POST',
        headers: {
          Authorization: this.authorization,
          'Content-Type': 'application/x-www-form-urlencoded',
          Accept: 'application/json',
        },
        body: form.toString(),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (err) {
      const timedOut = err instanceof Error && err.name === 'TimeoutError';
      const reason = timedOut ? `no answer within ${timeoutMs} ms` : `unreachable (${describe(err)})`;
      throw new CarrierError(`Twilio ${what}: ${reason}`, answered(null), { cause: err });
    }
    if (!response.ok) {
      const { message, refusal } = readTwilioError(response.status, text);
      throw new CarrierError(message, refusal);
    }
    return readCall(text, what, response.status);
  }
}

function callPath(callSid: string): string {
  if (!/^CA[0-9a-f]{32}$/i.test(callSid)) throw new RangeError(`not a Twilio call SID: ${JSON.stringify(callSid)}`);
  return `/Calls/${callSid}.json`;
}

function readCall(text: string, what: string, httpStatus: number): TwilioCall {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new CarrierError(`Twilio ${what}: the answer is not JSON`, answered(httpStatus), { cause: err });
  }
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const { sid, status } = fields;
  if (typeof sid !== 'string' || typeof status !== 'string')
    throw new CarrierError(`Twilio ${what}: the answer lacks the call's sid or status`, answered(httpStatus));
  return { sid, status };
}

/** No Twilio error body: the HTTP status of an answer Parley cannot read, or null when none came. */
function answered(status: number | null) {
  return { status, code: null, moreInfo: null };
}

/** A network failure in a few words (fetch's TypeError hides the reason in `cause`). */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? err.cause.message : undefined;
  return cause ?? err.message;
}
