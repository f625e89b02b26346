import { ValidationError } from '../errors/app-errors.js';
import type { Redis } from './redis.js';

/** `?limit=&cursor=&from=&to=` as the list endpoints accept them (DESIGN.md). */
export interface PageQuery {
  limit: number;
  cursor?: string | undefined;
  /** Inclusive lower bound on the index score (creation time, Unix ms). */
  from?: number | undefined;
  /** Inclusive upper bound on the index score (creation time, Unix ms). */
  to?: number | undefined;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

interface Position {
  score: number;
  id: string;
}

/** Most index entries one list request reads while filtering, so a rare filter cannot scan forever. */
const maxScanned = 2_000;

export function encodeCursor(p: Position): string {
  return Buffer.from(`${p.score}:${p.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): Position {
  const raw = Buffer.from(cursor, 'base64url').toString('utf8');
  const sep = raw.indexOf(':');
  const score = Number(raw.slice(0, sep));
  const id = raw.slice(sep + 1);
  if (sep < 1 || !Number.isFinite(score) || id === '') {
    throw new ValidationError([
      { path: 'query.cursor', message: 'invalid cursor; pass next_cursor from a previous page unchanged' },
    ]);
  }
  return { score, id };
}

/**
 * Newest-first page over a sorted set whose scores are creation times and whose members are ids.
 * The cursor is the (score, id) of the last entry read, so pages stay stable while records are
 * added. `load` turns ids into records (missing ones are skipped), `keep` filters them.
 *
 * The index is read a batch at a time (at least `limit + 1` entries), but records are loaded only as
 * far as the page still needs: while every record is kept, a page of `limit` loads exactly `limit`
 * records and the entries past them only tell whether there is a next page. Once one is dropped
 * (filtered out or missing), the rest of each batch is loaded at once, so a selective filter costs
 * few round trips. Which entries are read, and so every page and cursor, is as with whole batches.
 */
export async function pageByScore<T>(
  redis: Redis,
  indexKey: string,
  query: PageQuery,
  load: (ids: string[]) => Promise<(T | null)[]>,
  keep: (record: T) => boolean = () => true,
): Promise<Page<T>> {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  let max: number = Math.min(after?.score ?? Number.POSITIVE_INFINITY, query.to ?? Number.POSITIVE_INFINITY);
  const min = query.from ?? Number.NEGATIVE_INFINITY;
  const data: T[] = [];
  let last: Position | undefined;
  let scanned = 0;
  let batch = Math.max(query.limit + 1, 32);
  // Entries at the cursor's own score up to and including its id were on earlier pages.
  let boundaryId = after !== undefined && after.score === max ? after.id : undefined;
  let dropping = false;

  while (scanned < maxScanned) {
    const entries = await redis.zRangeWithScores(indexKey, fmt(max), fmt(min), {
      BY: 'SCORE',
      REV: true,
      LIMIT: { offset: 0, count: batch },
    });
    // Entries sharing the boundary score come newest-id first; skip the ones already returned.
    const fresh = entries.filter((e) => !(boundaryId !== undefined && e.score === max && e.value >= boundaryId));
    if (fresh.length === 0) {
      if (entries.length < batch) return { data, next_cursor: null };
      batch *= 2; // a run of equal scores longer than the batch: widen and retry
      continue;
    }
    let records: (T | null)[] = [];
    let loadedFrom = 0;
    for (let i = 0; i < fresh.length; i++) {
      if (i === loadedFrom + records.length) {
        const count = dropping ? fresh.length - i : Math.min(fresh.length - i, query.limit - data.length);
        records = await load(fresh.slice(i, i + count).map((e) => e.value));
        loadedFrom = i;
      }
      const entry = fresh[i]!;
      scanned++;
      last = { score: entry.score, id: entry.value };
      const record = records[i - loadedFrom];
      if (record !== null && record !== undefined && keep(record)) {
        data.push(record);
        if (data.length === query.limit) {
          const more = i < fresh.length - 1 || entries.length === batch;
          return { data, next_cursor: more ? encodeCursor(last) : null };
        }
      } else {
        dropping = true;
      }
    }
    if (entries.length < batch) return { data, next_cursor: null };
    max = last!.score;
    boundaryId = last!.id;
  }
  return { data, next_cursor: last === undefined ? null : encodeCursor(last) };
}

function fmt(score: number): string {
  if (score === Number.POSITIVE_INFINITY) return '+inf';
  if (score === Number.NEGATIVE_INFINITY) return '-inf';
  return String(score);
}

/** MGET of JSON records; absent keys become null. */
export async function loadJson<T>(redis: Redis, keys: string[]): Promise<(T | null)[]> {
  if (keys.length === 0) return [];
  const raw = await redis.mGet(keys);
  return raw.map((v) => (v === null ? null : (JSON.parse(v) as T)));
}

/**
 * A `keep` predicate for list filters that compare fields for equality: a filter field left
 * undefined matches every record.
 */
export function matchesFields<T extends object>(filter: object): (record: T) => boolean {
  const wanted = Object.entries(filter).filter(([, v]) => v !== undefined);
  return (record) => wanted.every(([k, v]) => (record as Record<string, unknown>)[k] === v);
}
