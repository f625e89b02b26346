import { z } from 'zod';
import { maxTypedTextChars, type ClientMessage, type ServerEvent } from '../../sessions/transport/messages.js';

/**
 * The built-in WebSocket media protocol (DESIGN.md "Voice transport"). Binary messages carry
 * PCM16LE mono audio at the rate the client declared (`?sample_rate=`, default 16000) in both
 * directions; text messages are JSON: a session's events (ServerEvent) as they are, and the
 * client's messages (ClientMessage), checked here.
 */

export const clientMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string().trim().min(1).max(maxTypedTextChars) }),
  z.strictObject({ type: z.literal('end') }),
]) satisfies z.ZodType<ClientMessage>;

/** A text message from the client: its ClientMessage, or the `error` event that answers it. */
export function decodeClientMessage(
  text: string,
): { ok: true; message: ClientMessage } | { ok: false; error: Extract<ServerEvent, { type: 'error' }> } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, error: { type: 'error', code: 'invalid_json', message: 'text messages must be JSON events' } };
  }
  const parsed = clientMessageSchema.safeParse(raw);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join('.') || 'message'}: ${i.message}`).join('; ');
    return { ok: false, error: { type: 'error', code: 'invalid_message', message: detail } };
  }
  return { ok: true, message: parsed.data };
}

/** A session event as the text message a client receives. */
export function encodeServerEvent(event: ServerEvent): string {
  return JSON.stringify(event);
}

export const supportedSampleRates = [8000, 16000, 22050, 24000, 32000, 44100, 48000] as const;
