import { adminKey, signOut } from './auth.js';

/** The error shape every Parley error body has: `{"error":{"code","message","request_id","details"}}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly details: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; request_id?: unknown; details?: unknown };
}

/** Builds an ApiError from a response body, whatever it holds (a proxy's HTML page included). */
export function toApiError(status: number, text: string, requestId: string | null): ApiError {
  let body: ErrorBody | undefined;
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    body = undefined; // not JSON (a proxy or network page): described by status below
  }
  const e = body?.error;
  if (e !== undefined && typeof e.message === 'string') {
    return new ApiError(
      status,
      typeof e.code === 'string' ? e.code : 'error',
      e.message,
      typeof e.request_id === 'string' ? e.request_id : requestId,
      e.details,
    );
  }
  return new ApiError(
    status,
    'http_error',
    `the server answered HTTP ${status} without an error description`,
    requestId,
    undefined,
  );
}

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
 * (undefined for 204); rejects with an ApiError carrying the server's own words. A 401 on a stored
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
    throw new ApiError(0, 'network_error', 'could not reach the Parley server; check the connection', null, undefined);
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
