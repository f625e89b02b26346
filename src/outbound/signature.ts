import { createHmac } from 'node:crypto';

/**
 * `X-Parley-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` keyed with the
 * agent's webhook key. Receivers recompute it over the raw body and reject stale `t` values.
 */
export function signBody(body: string, key: string, nowMs: number = Date.now()): string {
  const t = Math.floor(nowMs / 1000);
  const v1 = createHmac('sha256', key).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}
