import { randomBytes } from 'node:crypto';
import { monotonicFactory, ulid } from 'ulid';

/** Record id prefixes (DESIGN.md): sortable by creation time, 80 random bits, unguessable. */
export const idPrefixes = {
  agent: 'agt',
  preset: 'pre',
  session: 'ses',
  conversation: 'cnv',
  message: 'msg',
  error: 'err',
  document: 'doc',
  event: 'evt',
} as const;

export type IdKind = keyof typeof idPrefixes;

const sameMillisecond = monotonicFactory();
let latestMs = 0;

/**
 * Ids made within one millisecond still sort in creation order (the random part counts up), so
 * newest-first lists are exact; a back-dated `now` gets a plain random ULID of that time.
 */
export function newId(kind: IdKind, now: number = Date.now()): string {
  const id = now >= latestMs ? sameMillisecond(now) : ulid(now);
  latestMs = Math.max(latestMs, now);
  return `${idPrefixes[kind]}_${id.toLowerCase()}`;
}

const idPattern = /^[a-z]{3}_[0-9a-hjkmnp-tv-z]{26}$/;

export function isId(kind: IdKind, value: string): boolean {
  return value.startsWith(idPrefixes[kind] + '_') && idPattern.test(value);
}

/** Agent tokens: `pat_` + 32 random bytes, base64url. */
export function newAgentToken(): string {
  return 'pat_' + randomBytes(32).toString('base64url');
}
