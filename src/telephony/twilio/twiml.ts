import { transferTarget } from '../carrier-calls.js';

/**
 * The TwiML documents Parley writes: the voice webhook's answers (a document, with the XML
 * declaration: `twimlDocument`) and the `Twiml` of REST requests (outbound calls, transfers).
 */

const xmlEntities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text safe inside an XML element or a double-quoted attribute. */
export function xmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => xmlEntities[c]!);
}

/** A `<Response>` as a whole XML document (the voice webhook's answer). */
export function twimlDocument(response: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${response}`;
}

/**
 * `<Connect><Stream>`: the call's audio to Parley's media WebSocket at `streamUrl` (wss://…), with
 * `parameters` as the stream's custom parameters (they arrive in the `start` message).
 */
export function streamTwiml(streamUrl: string, parameters: Record<string, string>): string {
  const params = Object.entries(parameters)
    .map(([name, value]) => `<Parameter name="${xmlEscape(name)}" value="${xmlEscape(value)}"/>`)
    .join('');
  return `<Response><Connect><Stream url="${xmlEscape(streamUrl)}">${params}</Stream></Connect></Response>`;
}

/** Says `message` to the caller and hangs up. */
export function sayAndHangUpTwiml(message: string): string {
  return `<Response><Say>${xmlEscape(message)}</Say><Hangup/></Response>`;
}

/** `<Dial>` to an E.164 number (`<Number>`, bare or `tel:`) or a SIP URI (`<Sip>`); throws for anything else. */
export function dialTwiml(to: string): string {
  const target = transferTarget(to);
  if (target === null) throw new RangeError('a transfer target must be an E.164 number (+…) or a SIP URI (sip:…)');
  const inner =
    'number' in target ? `<Number>${xmlEscape(target.number)}</Number>` : `<Sip>${xmlEscape(target.sip)}</Sip>`;
  return `<Response><Dial>${inner}</Dial></Response>`;
}
