import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Page } from '../api/types.js';
import { Link } from '../router.js';

/**
 * Agent and preset names by id, for the lists that hold only ids (sessions, conversations, errors,
 * an agent's preset). Each list is read once per page load (all its pages) and shared by every
 * view; `forgetNames` drops it after the panel creates, renames or deletes one, and an id not in
 * it (created elsewhere since) reads the list again, at most every 10 s.
 */
type Kind = 'agents' | 'presets';

interface Names {
  map: Map<string, string>;
  readAt: number;
}

const cache: Partial<Record<Kind, Promise<Names>>> = {};
const listeners = new Set<() => void>();
/** Most pages read per list: 1000 records. */
const maxPages = 10;

async function readAll(kind: Kind): Promise<Names> {
  const map = new Map<string, string>();
  let cursor: string | null = null;
  for (let i = 0; i < maxPages; i++) {
    const q: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const page: Page<{ id: string; name: string }> = await api(`/admin/v1/${kind}?limit=100${q}`);
    for (const r of page.data) map.set(r.id, r.name);
    cursor = page.next_cursor;
    if (cursor === null) break;
  }
  return { map, readAt: Date.now() };
}

function names(kind: Kind): Promise<Names> {
  const pending = (cache[kind] ??= readAll(kind).catch((err: unknown) => {
    delete cache[kind];
    throw err;
  }));
  return pending;
}

/** Drops the cached names (after the panel changed an agent or preset) and re-renders their users. */
export function forgetNames(kind: Kind): void {
  delete cache[kind];
  listeners.forEach((l) => l());
}

/** The name of `id`, undefined while unknown (loading, deleted, or unreadable). */
export function useName(kind: Kind, id: string | null): string | undefined {
  const [tick, setTick] = useState(0);
  const [name, setName] = useState<string | undefined>(undefined);
  useEffect(() => {
    const update = () => setTick((t) => t + 1);
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  useEffect(() => {
    if (id === null) return;
    let live = true;
    names(kind).then(
      (n) => {
        const found = n.map.get(id);
        if (found === undefined && Date.now() - n.readAt > 10_000) {
          forgetNames(kind);
          return;
        }
        if (live) setName(found);
      },
      () => live && setName(undefined), // the id stands in for the name
    );
    return () => {
      live = false;
    };
  }, [kind, id, tick]);
  return id === null ? undefined : name;
}

/**
 * A link to an agent or preset under its name, cut with an ellipsis where space is short (the whole
 * name and id in its title); the id itself while the name is unknown (a deleted record keeps its id).
 */
export function NameLink({ kind, id }: { kind: Kind; id: string }): JSX.Element {
  const name = useName(kind, id);
  return (
    <Link href={`/${kind}/${id}`} class="name" title={name === undefined ? id : `${name} (${id})`}>
      {name ?? id}
    </Link>
  );
}

export function AgentName({ id }: { id: string }): JSX.Element {
  return <NameLink kind="agents" id={id} />;
}

export function PresetName({ id }: { id: string | null }): JSX.Element {
  return id === null ? <span>built-in</span> : <NameLink kind="presets" id={id} />;
}
