import type { Context } from 'koa';
import { AppError } from '../../../errors/app-errors.js';

/** Largest webhook body read: Twilio's voice webhooks are a few KiB. */
export const maxFormBytes = 64 * 1024;

/** The request's application/x-www-form-urlencoded body (unread by the JSON parser), within `maxFormBytes`. */
export async function readFormBody(ctx: Context): Promise<URLSearchParams> {
  if (ctx.is('application/x-www-form-urlencoded') === false)
    throw new AppError(415, 'unsupported_media_type', 'send the body as application/x-www-form-urlencoded');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxFormBytes) throw new AppError(413, 'payload_too_large', `body larger than ${maxFormBytes} bytes`);
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
