/** The few TwiML documents Parley answers Twilio's voice webhook with. */

const xmlEntities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text safe inside an XML element or a double-quoted attribute. */
export function xmlEscape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => xmlEntities[c]!);
}

const prolog = '<?xml version="1.0" encoding="UTF-8"?>';

/** Connects the call to a bidirectional Media Stream at `url`, passing `parameters` in its `start` message. */
export function connectStreamTwiml(url: string, parameters: Record<string, string>): string {
  const params = Object.entries(parameters)
    .map(([name, value]) => `<Parameter name="${xmlEscape(name)}" value="${xmlEscape(value)}"/>`)
    .join('');
  return `${prolog}<Response><Connect><Stream url="${xmlEscape(url)}">${params}</Stream></Connect></Response>`;
}

/** Says `message` to the caller and hangs up. */
export function sayAndHangUpTwiml(message: string): string {
  return `${prolog}<Response><Say>${xmlEscape(message)}</Say><Hangup/></Response>`;
}
