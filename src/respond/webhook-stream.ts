import { StreamFormatError, framerFor, ndjsonType, sseType } from './stream-framing.js';

/** The media types a webhook may stream its answer in (README "Streamed answers"), in `Accept` order. */
export const webhookStreamTypes = [sseType, ndjsonType] as const;

export type WebhookStreamType = (typeof webhookStreamTypes)[number];

export function isWebhookStreamType(mediaType: string): mediaType is WebhookStreamType {
  return (webhookStreamTypes as readonly string[]).includes(mediaType);
}

/** One record of a streamed answer: a JSON object; other fields are ignored. */
interface StreamRecord {
  /** Words to append to the answer. */
  text: string | null;
  /** Call control, as a JSON answer's `action` (undefined: the record has none). */
  action: unknown;
  /** The answer is complete: nothing after this record is read. */
  done: boolean;
}

/** How a streamed answer ended: the last `action` any record carried (undefined when none did). */
export interface StreamEnd {
  action: unknown;
}

/**
 * A streamed webhook answer's text as it arrives, chunk by chunk: each record's `text` in order,
 * until a record with `done: true` or the end of the body. Throws StreamFormatError for a record
 * that is not a JSON object of the documented fields, a body over `maxBytes`, a body that ends
 * mid-record or carries no answer at all; errors of `chunks` (a stall, a cut) pass through.
 */
export async function* readWebhookStream(
  chunks: AsyncIterable<Uint8Array>,
  mediaType: WebhookStreamType,
  maxBytes: number,
): AsyncGenerator<string, StreamEnd> {
  const framer = framerFor(mediaType);
  let size = 0;
  let answered = false;
  let action: unknown = undefined;
  const take = function* (records: string[]): Generator<string, boolean> {
    for (const json of records) {
      const record = parseRecord(json);
      answered ||= record.text !== null || record.action !== undefined || record.done;
      if (record.action !== undefined) action = record.action;
      if (record.text !== null && record.text !== '') yield record.text;
      if (record.done) return true;
    }
    return false;
  };
  for await (const chunk of chunks) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new StreamFormatError(`webhook reply is too large (over ${maxBytes} bytes)`);
    if (yield* take(framer.push(chunk))) return { action };
  }
  yield* take(framer.end());
  if (!answered)
    throw new StreamFormatError('webhook stream ended without an answer (no record with `text`, `action` or `done`)');
  return { action };
}

function parseRecord(json: string): StreamRecord {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new StreamFormatError(`webhook stream sent a record that is not JSON: ${preview(json)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new StreamFormatError(`webhook stream sent a record that is not a JSON object: ${preview(json)}`);
  const { text, action, done } = value as { text?: unknown; action?: unknown; done?: unknown };
  if (text !== undefined && text !== null && typeof text !== 'string')
    throw new StreamFormatError(`webhook stream record's \`text\` is not a string: ${preview(json)}`);
  if (done !== undefined && done !== null && typeof done !== 'boolean')
    throw new StreamFormatError(`webhook stream record's \`done\` is not true or false: ${preview(json)}`);
  return { text: text ?? null, action, done: done === true };
}

/** The start of what the webhook sent, quoted, for the error record. */
function preview(json: string): string {
  return JSON.stringify(json.length > 80 ? `${json.slice(0, 80)}…` : json);
}
