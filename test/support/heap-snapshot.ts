/**
 * Takes a V8 heap snapshot of this thread (after a full GC) and counts live objects and their
 * bytes by constructor name, so two snapshots can be diffed: what a piece of code left behind.
 * The counts are handed out as one JSON string: strings are not counted, so holding the first
 * snapshot's counts does not show up as growth in the second.
 */
import { getHeapSnapshot, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Counts = Map<string, { count: number; bytes: number }>;
/** Counts as JSON: [key, count, bytes][]. */
export type HeapCounts = string;

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

export async function heapCounts(): Promise<HeapCounts> {
  gc();
  gc();
  const chunks: string[] = [];
  for await (const chunk of getHeapSnapshot()) chunks.push(String(chunk));
  const snap = JSON.parse(chunks.join('')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = snap.snapshot.meta.node_types[0];
  const counts: Counts = new Map();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]!]!;
    if (type !== 'object' && type !== 'closure' && type !== 'array' && type !== 'native') continue;
    const key = `${type}:${snap.strings[snap.nodes[i + nameAt]!]!}`;
    const entry = counts.get(key) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += snap.nodes[i + sizeAt]!;
    counts.set(key, entry);
  }
  return JSON.stringify([...counts].map(([key, c]) => [key, c.count, c.bytes]));
}

/** What grew from `before` to `after`, largest growth in bytes first. */
export function heapGrowth(before: HeapCounts, after: HeapCounts): { key: string; count: number; bytes: number }[] {
  const parse = (json: HeapCounts): Counts =>
    new Map((JSON.parse(json) as [string, number, number][]).map(([key, count, bytes]) => [key, { count, bytes }]));
  const [b4, a4] = [parse(before), parse(after)];
  const grown: { key: string; count: number; bytes: number }[] = [];
  for (const [key, a] of a4) {
    const b = b4.get(key) ?? { count: 0, bytes: 0 };
    if (a.count > b.count || a.bytes > b.bytes) grown.push({ key, count: a.count - b.count, bytes: a.bytes - b.bytes });
  }
  return grown.sort((x, y) => y.bytes - x.bytes);
}
