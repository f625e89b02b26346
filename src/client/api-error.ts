/**
 * Parley's error shape, `{"error":{"code","message","request_id","details"}}`, as browser code
 * sees it: the SDK (createVoiceSession, VoiceConnection) and the admin panel throw this one class.
 */
export class ParleyApiError extends Error {
  override readonly name = 'ParleyApiError';
  constructor(
    /** HTTP status; 0 when the server was not reached. */
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly details: unknown,
  ) {
    super(message);
  }
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; request_id?: unknown; details?: unknown };
}

/**
 * The error of a non-2xx answer, whatever its body holds (a proxy's HTML page included): the
 * server's own words when it has Parley's error shape; otherwise `http_error`, described by the
 * status, with the start of the body as `details`. `requestId`: the answer's X-Request-Id, for a
 * body that names none.
 */
export function toApiError(status: number, text: string, requestId: string | null): ParleyApiError {
  let body: ErrorBody | undefined;
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    body = undefined; // not JSON (a proxy or network page): described by status below
  }
  const e = body?.error;
  if (e !== undefined && e !== null && typeof e.message === 'string') {
    return new ParleyApiError(
      status,
      typeof e.code === 'string' ? e.code : 'error',
      e.message,
      typeof e.request_id === 'string' ? e.request_id : requestId,
      e.details ?? null,
    );
  }
  return new ParleyApiError(
    status,
    'http_error',
    `the server answered HTTP ${status} without an error description`,
    requestId,
    text.slice(0, 200),
  );
}

/** Reads the error of a non-2xx `fetch` answer (see toApiError). */
export async function readApiError(res: Response): Promise<ParleyApiError> {
  const text = await res.text().catch(() => ''); // a body that cannot be read: the status alone makes the error
  return toApiError(res.status, text, res.headers.get('X-Request-Id'));
}
