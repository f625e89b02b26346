import { version } from '../project/version.js';
import { signBody } from './signature.js';

const userAgent = `Parley/${version}`;

/** Headers on every request Parley sends to an operator (webhook, tool calls, events). */
export function outboundHeaders(
  body: string,
  key: string | null,
  extra: Record<string, string> = {},
): Record<string, string> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'User-Agent': userAgent, ...extra };
  if (key !== null) {
    headers['Authorization'] = `Bearer ${key}`;
    headers['X-Parley-Signature'] = signBody(body, key);
  }
  return headers;
}
