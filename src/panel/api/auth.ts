/**
 * The admin key lives in sessionStorage only: gone when the tab closes, never in the page, a URL
 * or a cookie, and sent only as the X-API-Key header.
 */
const storageKey = 'parley.adminApiKey';

type Listener = (state: { signedIn: boolean; notice: string | null }) => void;
const listeners = new Set<Listener>();

export function adminKey(): string | null {
  return sessionStorage.getItem(storageKey);
}

export function signIn(key: string): void {
  sessionStorage.setItem(storageKey, key);
  for (const l of listeners) l({ signedIn: true, notice: null });
}

export function signOut(notice: string | null = null): void {
  sessionStorage.removeItem(storageKey);
  for (const l of listeners) l({ signedIn: false, notice });
}

export function onAuthChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
