import { ParleyApiError, toApiError } from '../../client/api-error.js';
import { adminKey, signOut } from './auth.js';

/** The panel's name for the SDK's error class: one class for Parley's one error shape. */
export { ParleyApiError as ApiError, toApiError } from '../../client/api-error.js';

export interface RequestOptions {
  method?: string;
  body?: unknown;
  signal?: AbortSignal;
  /** Send without the admin key (public endpoints). */
  anonymous?: boolean;
  /** Use this key instead of the stored one (sign-in check). */
  key?: string;
}

/**
 * Calls Parley with the admin key from session storage as X-API-Key. Resolves with the parsed JSON
 * (undefined for 204); rejects with a ParleyApiError carrying the server's own words. A 401 on a stored
 * key (rotated on the server) signs out, so the sign-in form says why.
 */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const key = options.key ?? adminKey();
  if (options.anonymous !== true && key !== null) headers['X-API-Key'] = key;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['Content-Type'] = 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(path, { method: options.method ?? 'GET', headers, body, signal: options.signal ?? null });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ParleyApiError(
      0,
      'network_error',
      'could not reach the Parley server; check the connection',
      null,
      undefined,
    );
  }
  const text = await res.text();
  if (!res.ok) {
    const error = toApiError(res.status, text, res.headers.get('X-Request-Id'));
    if (res.status === 401 && options.key === undefined && options.anonymous !== true) {
      signOut(`Signed out: the server refused the admin key (${error.message}).`);
    }
    throw error;
  }
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** Query string from the set values of `params`. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}
