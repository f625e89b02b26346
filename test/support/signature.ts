import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * What an operator's receiver does with `X-Parley-Signature: t=<unix>,v1=<hex>`: recompute the
 * HMAC-SHA256 of `${t}.${rawBody}` with the shared key and compare in constant time. Written
 * independently of src/events/signature.ts on purpose.
 */
export function verifyParleySignature(
  header: string | string[] | undefined,
  rawBody: string,
  key: string,
): { valid: boolean; t: number } {
  if (typeof header !== 'string') return { valid: false, t: Number.NaN };
  const parts = new Map(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  const expected = createHmac('sha256', key)
    .update(`${parts.get('t')}.${rawBody}`)
    .digest('hex');
  const valid = /^[0-9a-f]{64}$/.test(v1) && timingSafeEqual(Buffer.from(v1, 'hex'), Buffer.from(expected, 'hex'));
  return { valid: valid && Number.isInteger(t), t };
}
