import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake of Twilio's REST API (2010-04-01) on a real local HTTP server: the calls resource Parley
 * uses (create, and update with Status or Twiml). It checks HTTP Basic auth exactly, records every
 * request it accepted, answers with Twilio's JSON shapes, and can be told to refuse or stall.
 */

export interface CarrierRestRequest {
  method: string;
  path: string;
  /** The form body; a repeated field (StatusCallbackEvent) keeps its last value here, all of them in `all`. */
  form: Record<string, string>;
  all: URLSearchParams;
}

export interface CarrierFailure {
  status: number;
  code: number;
  message: string;
}

export interface FakeCarrierRest {
  /** The base URL for PARLEY_TWILIO_API_BASE_URL. */
  url: string;
  accountSid: string;
  authToken: string;
  /** Requests that passed authentication, in order. */
  requests: CarrierRestRequest[];
  /** Requests refused for their credentials. */
  unauthorized: number;
  /** The next requests (one per entry) are refused with this Twilio error. */
  failNext(...failures: CarrierFailure[]): void;
  /** Requests get no answer for this long (to test timeouts); 0 to stop. */
  stallMs: number;
  close(): Promise<void>;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

export async function startFakeCarrierRest(accountSid = `AC${hex(16)}`, authToken = hex(16)): Promise<FakeCarrierRest> {
  const failures: CarrierFailure[] = [];
  const calls = new Map<string, Record<string, string>>();
  const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
  const fake: FakeCarrierRest = {
    url: '',
    accountSid,
    authToken,
    requests: [],
    unauthorized: 0,
    stallMs: 0,
    failNext: (...f) => void failures.push(...f),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (fake.stallMs > 0) await new Promise((r) => setTimeout(r, fake.stallMs));
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    };
    const error = (status: number, code: number, message: string) =>
      reply(status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });
    if (req.headers.authorization !== expected) {
      fake.unauthorized += 1;
      return error(401, 20003, 'Authenticate');
    }
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const all = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const form = Object.fromEntries(all);
    const failure = failures.shift();
    if (req.method !== 'POST' || req.headers['content-type'] !== 'application/x-www-form-urlencoded')
      return error(400, 20001, 'expected a form-encoded POST');
    fake.requests.push({ method: req.method, path, form, all });
    if (failure !== undefined) return error(failure.status, failure.code, failure.message);
    const base = `/2010-04-01/Accounts/${accountSid}/Calls`;
    if (path === `${base}.json`) {
      if (form['To'] === undefined || form['From'] === undefined) return error(400, 21201, 'No To or From number');
      if ((form['Twiml'] === undefined) === (form['Url'] === undefined))
        return error(400, 21205, 'Url or Twiml needed');
      const sid = `CA${hex(16)}`;
      const call = { sid, account_sid: accountSid, to: form['To'], from: form['From'], status: 'queued' };
      calls.set(sid, call);
      return reply(201, { ...call, api_version: '2010-04-01', uri: `${base}/${sid}.json` });
    }
    const sid = path.startsWith(`${base}/`) && path.endsWith('.json') ? path.slice(base.length + 1, -5) : '';
    const call =
      calls.get(sid) ?? (sid.startsWith('CA') ? { sid, account_sid: accountSid, status: 'in-progress' } : undefined);
    if (call === undefined) return error(404, 20404, `The requested resource ${path} was not found`);
    if (form['Status'] !== undefined) call['status'] = form['Status'];
    calls.set(sid, call);
    return reply(200, call);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
