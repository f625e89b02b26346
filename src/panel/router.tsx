import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** Client-side routes live under /home; the server answers every /home/* path with index.html. */
export const base = '/home';

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => listeners.forEach((l) => l()));

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  listeners.forEach((l) => l());
}

export interface Location {
  /** Path below /home, e.g. `/agents/agt_…` (`/` for the overview). */
  path: string;
  search: URLSearchParams;
}

function current(): Location {
  const path = location.pathname.startsWith(base) ? location.pathname.slice(base.length) || '/' : '/';
  return { path: path.replace(/\/+$/, '') || '/', search: new URLSearchParams(location.search) };
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const update = () => setLoc(current());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return loc;
}

/** Replaces the query string (filters) without a new history entry per keystroke. */
export function setSearch(params: Record<string, string>): void {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== '') q.set(k, v);
  const s = q.toString();
  navigate(`${location.pathname}${s === '' ? '' : `?${s}`}`, true);
}

interface LinkProps {
  href: string;
  children: ComponentChildren;
  class?: string;
  title?: string;
  'aria-current'?: 'page' | undefined;
  'aria-label'?: string;
}

/** An ordinary link (open in new tab works) that navigates in-page on a plain click. */
export function Link({ href, children, ...rest }: LinkProps): JSX.Element {
  const full = href.startsWith('/') ? base + (href === '/' ? '' : href) : href;
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(full);
    window.scrollTo(0, 0);
  };
  return (
    <a href={full} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
