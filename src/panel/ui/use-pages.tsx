import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Page } from '../api/types.js';

export interface Pages<T> {
  items: T[];
  loading: boolean;
  error: unknown;
  /** A "Load more" button while the list has a next page. */
  more: JSX.Element | null;
  reload: () => void;
}

/** A cursor-paginated list: the first page of `path`, and more on request. */
export function usePages<T>(path: string): Pages<T> {
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(undefined);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    setError(undefined);
    api<Page<T>>(path, { signal: controller.signal }).then(
      (page) => {
        setItems(page.data);
        setCursor(page.next_cursor);
        setLoading(false);
      },
      (err: unknown) => {
        if (controller.signal.aborted) return;
        setItems([]);
        setError(err);
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [path, tick]);

  const loadMore = async () => {
    if (cursor === null) return;
    setLoading(true);
    try {
      const page = await api<Page<T>>(`${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`);
      setItems((old) => [...old, ...page.data]);
      setCursor(page.next_cursor);
    } catch (err) {
      setError(err);
    } finally {
      setLoading(false);
    }
  };
  const more =
    cursor === null ? null : (
      <button type="button" class="more" disabled={loading} onClick={() => void loadMore()}>
        {loading ? 'Loading…' : 'Load more'}
      </button>
    );
  return { items, loading, error, more, reload: () => setTick((t) => t + 1) };
}
