import { transferTarget } from '../carrier-calls.js';

/** The TwiML documents Parley sends through Twilio's REST API (outbound calls, transfers). */

/** Text and attribute values escaped for XML. */
export function escapeXml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

/** `<Dial>` to an E.164 number (`<Number>`, bare or `tel:`) or a SIP URI (`<Sip>`); throws for anything else. */
export function dialTwiml(to: string): string {
  const target = transferTarget(to);
  if (target === null) throw new RangeError('a transfer target must be an E.164 number (+…) or a SIP URI (sip:…)');
  const inner =
    'number' in target ? `<Number>${escapeXml(target.number)}</Number>` : `<Sip>${escapeXml(target.sip)}</Sip>`;
  return `<Response><Dial>${inner}</Dial></Response>`;
}

/**
 * `<Connect><Stream>`: the call's audio to Parley's media WebSocket at `streamUrl` (wss://…), with
 * `parameters` as the stream's custom parameters (they arrive in the `start` message).
 */
export function streamTwiml(streamUrl: string, parameters: Record<string, string>): string {
  const params = Object.entries(parameters)
    .map(([name, value]) => `<Parameter name="${escapeXml(name)}" value="${escapeXml(value)}"/>`)
    .join('');
  return `<Response><Connect><Stream url="${escapeXml(streamUrl)}">${params}</Stream></Connect></Response>`;
}
