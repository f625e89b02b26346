import { randomBytes, randomFillSync } from 'node:crypto';
import { monotonicFactory, ulid } from 'ulid';
import { idPrefixes, type IdKind } from './id-format.js';

/**
 * ULID's random characters from a pool of crypto-random bytes refilled 4 KiB at a time: its own
 * source asks WebCrypto for one byte per character (16 calls an id), which showed in profiles
 * under load. A byte / 256 × 32 picks each of the 32 characters with equal odds (5 bits a byte).
 */
const pool = new Uint8Array(4096);
let poolAt = pool.length;
function pooledRandom(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++]! / 256;
}

const sameMillisecond = monotonicFactory(pooledRandom);
let latestMs = 0;

/**
 * Ids made within one millisecond still sort in creation order (the random part counts up), so
 * newest-first lists are exact; a back-dated `now` gets a plain random ULID of that time.
 */
export function newId(kind: IdKind, now: number = Date.now()): string {
  const id = now >= latestMs ? sameMillisecond(now) : ulid(now, pooledRandom);
  latestMs = Math.max(latestMs, now);
  return `${idPrefixes[kind]}_${id.toLowerCase()}`;
}

/** Agent tokens: `pat_` + 32 random bytes, base64url. */
export function newAgentToken(): string {
  return 'pat_' + randomBytes(32).toString('base64url');
}
