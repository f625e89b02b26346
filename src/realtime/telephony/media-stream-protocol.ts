import { z } from 'zod';

/**
 * Twilio Media Streams, the WebSocket messages of a bidirectional stream (`<Connect><Stream>`):
 * what Twilio sends (checked here; fields Parley does not read are allowed and ignored) and what
 * Parley sends back. Audio is base64 μ-law (G.711), 8000 Hz, mono, 20 ms per inbound `media`.
 */

const sequenceNumber = z.string();

export const inboundMessageSchema = z.discriminatedUnion('event', [
  z.object({ event: z.literal('connected'), protocol: z.string(), version: z.string() }),
  z.object({
    event: z.literal('start'),
    sequenceNumber,
    streamSid: z.string().min(1),
    start: z.object({
      accountSid: z.string(),
      streamSid: z.string().min(1),
      callSid: z.string().min(1),
      tracks: z.array(z.string()),
      customParameters: z.record(z.string(), z.string()).default({}),
      mediaFormat: z.object({ encoding: z.string(), sampleRate: z.number(), channels: z.number() }),
    }),
  }),
  z.object({
    event: z.literal('media'),
    sequenceNumber,
    streamSid: z.string(),
    media: z.object({ track: z.string(), chunk: z.string(), timestamp: z.string(), payload: z.string() }),
  }),
  z.object({ event: z.literal('mark'), sequenceNumber, streamSid: z.string(), mark: z.object({ name: z.string() }) }),
  z.object({
    event: z.literal('dtmf'),
    sequenceNumber,
    streamSid: z.string(),
    dtmf: z.object({ track: z.string(), digit: z.string().regex(/^[0-9*#A-D]$/) }),
  }),
  z.object({
    event: z.literal('stop'),
    sequenceNumber,
    streamSid: z.string(),
    stop: z.object({ accountSid: z.string(), callSid: z.string() }),
  }),
]);

export type InboundMessage = z.infer<typeof inboundMessageSchema>;
export type StartMessage = Extract<InboundMessage, { event: 'start' }>;

export type OutboundMessage =
  | { event: 'media'; streamSid: string; media: { payload: string } }
  | { event: 'mark'; streamSid: string; mark: { name: string } }
  | { event: 'clear'; streamSid: string };

/** The only audio format Parley takes: what Twilio streams on every call. */
export const streamFormat = { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } as const;

/**
 * Close codes of the media WebSocket (the README's table lists them): the standard ones for bad
 * input, 4xxx for refusals of the session itself (as on the built-in endpoint).
 */
export const streamCloseCodes = {
  /** `stop` received: the call is over. */
  normal: 1000,
  /** A message that is not JSON, an unknown event, a bad base64 payload or another media format. */
  invalidData: 1007,
  /** A message out of order (`media`, `mark`, `dtmf` before `start`; a second `start`). */
  policyViolation: 1008,
  /** The `token` parameter is missing, invalid or expired, or names another session. */
  unauthorized: 4401,
  /** The session or its agent does not exist. */
  notFound: 4404,
  /** The session has ended or is already connected. */
  conflict: 4409,
  /** Shutting down, or the store is unreachable. */
  unavailable: 4503,
  internal: 1011,
} as const;

/** A text message from Twilio: the message, or why the stream must be closed (code and reason). */
export function decodeInbound(
  text: string,
): { ok: true; message: InboundMessage } | { ok: false; code: number; reason: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, code: streamCloseCodes.invalidData, reason: 'message is not JSON' };
  }
  const parsed = inboundMessageSchema.safeParse(raw);
  if (parsed.success) return { ok: true, message: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue === undefined ? 'message' : issue.path.join('.') || 'message';
  return { ok: false, code: streamCloseCodes.invalidData, reason: `${where}: ${issue?.message ?? 'invalid'}` };
}

/** Strict base64 (Node's decoder skips junk silently): the bytes, or null. */
export function decodeBase64(payload: string): Buffer | null {
  if (payload.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(payload)) return null;
  return Buffer.from(payload, 'base64');
}
