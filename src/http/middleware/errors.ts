import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { AppError } from '../../errors/app-errors.js';
import { isStoreUnavailable } from '../../store/unavailable.js';
import { fromBodyError } from '../body-errors.js';
import type { ErrorBody } from '../error-body.js';

/** The error for a status that a middleware set without a body (404 no route, 405, 501). */
function fromStatus(status: number, ctx: Context): AppError {
  switch (status) {
    case 404:
      return new AppError(404, 'not_found', `no route for ${ctx.method} ${ctx.path}`);
    case 405:
      return new AppError(
        405,
        'method_not_allowed',
        `${ctx.method} is not allowed here; allowed: ${ctx.response.get('Allow') || 'none'}`,
      );
    case 501:
      return new AppError(501, 'not_implemented', `method ${ctx.method} is not implemented`);
    default:
      return new AppError(
        status,
        status >= 500 ? 'internal_error' : 'bad_request',
        status >= 500 ? 'internal error' : 'bad request',
      );
  }
}

const koaCodes: Record<number, string> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  408: 'request_timeout',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/** Koa's own HTTP errors (ctx.throw, http-errors) with a 4xx status and no body of ours. */
function fromKoaError(err: unknown): AppError | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { status, expose, message } = err as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  const text = expose === true && typeof message === 'string' ? message : undefined;
  return new AppError(status, koaCodes[status] ?? 'bad_request', text ?? 'bad request');
}

/**
 * Redis unreachable, frozen, closing or not ready yet: the request may succeed later, so the client
 * gets 503 `store_unavailable` with Retry-After instead of a 500.
 */
function storeUnavailable(): AppError {
  return new AppError(503, 'store_unavailable', 'the data store is unavailable; retry shortly', undefined, {
    'Retry-After': '1',
  });
}

export function send(ctx: Context, error: AppError): void {
  const body: ErrorBody = {
    error: {
      code: error.code,
      message: error.message,
      request_id: ctx.state['requestId'] as string,
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  };
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
  ctx.body = body;
  ctx.state['errorCode'] = error.code;
}

/**
 * The one place errors become responses. Domain errors keep their code and message; a store
 * outage is 503; a body that cannot be read is its 4xx; anything else is a 500 whose message and
 * stack go to the log only. Statuses set without a body (unmatched route, 405, 501) get the same
 * error shape.
 *
 * Logging: an expected error (any AppError, 4xx or 5xx, and store outages) is not logged here: the
 * access log line carries its status and code (at info, or warn for 5xx) and, for a store outage,
 * the Redis error's message. Only a real 500 is logged here, at error level with its stack.
 */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status >= 400 && (ctx.body === undefined || ctx.body === null)) send(ctx, fromStatus(ctx.status, ctx));
    } catch (err) {
      if (isStoreUnavailable(err)) {
        ctx.state['errorCause'] = err instanceof Error ? err.message : String(err);
        send(ctx, storeUnavailable());
        return;
      }
      const known = err instanceof AppError ? err : (fromBodyError(err) ?? fromKoaError(err));
      if (known !== undefined) {
        send(ctx, known);
        return;
      }
      logger.error({ request_id: ctx.state['requestId'] as string, err }, 'request failed');
      send(ctx, new AppError(500, 'internal_error', 'internal error; quote the request id when reporting it'));
    }
  };
}
