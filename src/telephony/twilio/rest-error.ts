import { AppError } from '../../errors/app-errors.js';

/** What Twilio said when it refused a request: the HTTP status and its JSON error body's fields. */
export interface CarrierRefusal {
  /** HTTP status of Twilio's answer; null when no answer came (timeout, network). */
  status: number | null;
  /** Twilio's error code (`20003`: authentication failed, `21211`: invalid To number, …). */
  code: number | null;
  /** Twilio's documentation page for the code. */
  moreInfo: string | null;
}

/**
 * A carrier REST call that failed: refused (with Twilio's status, code and message), timed out or
 * unreachable. As an AppError it answers 502 `carrier_error` with that message; it never carries
 * the account's auth token (only the path, which names the account and call SIDs, is in the text).
 */
export class CarrierError extends AppError {
  override name = 'CarrierError';

  constructor(
    message: string,
    readonly refusal: CarrierRefusal,
    options?: ErrorOptions,
  ) {
    super(502, 'carrier_error', message, {
      carrier: 'twilio',
      carrier_status: refusal.status,
      carrier_code: refusal.code,
      more_info: refusal.moreInfo,
    });
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/** Twilio's JSON error body (`{code, message, more_info, status}`), read leniently. */
export function readTwilioError(status: number, text: string): { message: string; refusal: CarrierRefusal } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined; // not JSON (a proxy's HTML page): the status alone says it
  }
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const code = typeof fields['code'] === 'number' ? fields['code'] : null;
  const moreInfo = typeof fields['more_info'] === 'string' ? fields['more_info'] : null;
  const said = typeof fields['message'] === 'string' && fields['message'] !== '' ? fields['message'] : null;
  const message = `Twilio refused the request (HTTP ${status}${code === null ? '' : `, error ${code}`})${said === null ? '' : `: ${said}`}`;
  return { message, refusal: { status, code, moreInfo } };
}
