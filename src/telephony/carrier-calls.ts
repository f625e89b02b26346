/**
 * Call control through the carrier's REST API (issue 22, item 4): what the phone transport calls
 * for `end_call` (after the closing words have played) and `transfer`. Twilio's implementation is
 * src/telephony/twilio/rest-client.ts; a fake for tests is test/support/fake-carrier-rest.ts.
 */
export interface CarrierCalls {
  /** Ends the call (Twilio: the call's `Status=completed`). */
  hangUp(callSid: string): Promise<void>;
  /**
   * Hands the call over to `to`, an E.164 number (`+4930…`, also as `tel:+4930…`) or a SIP URI
   * (`sip:…`, an agent's `transfer_to` as it is): the carrier
   * dials it and the caller leaves Parley's media stream (Twilio: new TwiML with `<Dial>`).
   */
  transfer(callSid: string, to: string): Promise<void>;
}

/** E.164: `+`, then 2 to 15 digits, the first not 0. */
export const e164Pattern = /^\+[1-9][0-9]{1,14}$/;

/** A SIP URI a carrier can dial: `sip:` or `sips:`, a user or host part, no spaces or angle brackets. */
export const sipUriPattern = /^sips?:[^\s<>"]+$/i;

/** `to` as the carrier dials it: `{number}` for E.164 (bare or `tel:`), `{sip}` for a SIP URI, else null. */
export function transferTarget(to: string): { number: string } | { sip: string } | null {
  const number = to.replace(/^tel:/i, '');
  if (e164Pattern.test(number)) return { number };
  if (sipUriPattern.test(to)) return { sip: to };
  return null;
}
