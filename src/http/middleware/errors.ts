import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import {
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ErrorReply,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
} from 'redis';
import { AppError } from '../../errors.js';
import type { ErrorBody } from '../error-body.js';

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  type?: string;
  message?: string;
}

/** Errors raised by Koa, the body parser and raw-body, mapped onto stable codes. */
function fromHttpError(err: HttpLikeError): AppError | undefined {
  const status = err.status ?? err.statusCode;
  if (typeof status !== 'number' || status < 400 || status > 599) return undefined;
  if (status === 413) return new AppError(413, 'payload_too_large', 'request body is larger than the limit');
  if (status === 415) return new AppError(415, 'unsupported_media_type', 'send the body as application/json');
  if (status === 400 && (err.type === 'entity.parse.failed' || /json/i.test(err.message ?? ''))) {
    return new AppError(400, 'invalid_json', 'request body is not valid JSON');
  }
  if (status >= 500) return undefined;
  return fromStatus(status, err.expose === true ? err.message : undefined);
}

/** The error for a status that a middleware set without a body (404 no route, 405, 501). */
function fromStatus(status: number, message: string | undefined, ctx?: Context): AppError {
  switch (status) {
    case 404:
      return new AppError(
        404,
        'not_found',
        ctx === undefined ? (message ?? 'not found') : `no route for ${ctx.method} ${ctx.path}`,
      );
    case 405:
      return new AppError(
        405,
        'method_not_allowed',
        `${ctx?.method ?? 'this method'} is not allowed here; allowed: ${ctx?.response.get('Allow') || 'none'}`,
      );
    case 501:
      return new AppError(501, 'not_implemented', `method ${ctx?.method ?? ''} is not implemented`.trim());
    default:
      return new AppError(
        status,
        status >= 500 ? 'internal_error' : 'bad_request',
        message ?? (status >= 500 ? 'internal error' : 'bad request'),
      );
  }
}

/** Redis replies that mean "not now" rather than "wrong": loading its data, failing over, busy. */
const transientReply = /^(LOADING|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY)\b/;

/**
 * Redis unreachable, closed, timing out or not ready yet: the request may succeed later, so the
 * client gets 503 `store_unavailable` instead of a 500.
 */
function fromStoreError(err: unknown): AppError | undefined {
  const unavailable =
    err instanceof ClientOfflineError ||
    err instanceof ClientClosedError ||
    err instanceof ConnectionTimeoutError ||
    err instanceof SocketClosedUnexpectedlyError ||
    err instanceof SocketTimeoutError ||
    err instanceof ReconnectStrategyError ||
    err instanceof DisconnectsClientError ||
    (err instanceof ErrorReply && transientReply.test(err.message));
  if (!unavailable) return undefined;
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
}

/**
 * The one place errors become responses. Domain errors keep their code and message; a store
 * outage is 503; anything else is a 500 whose message and stack go to the log only. Statuses set
 * without a body (unmatched route, 405, 501) get the same error shape.
 */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status >= 400 && (ctx.body === undefined || ctx.body === null)) {
        send(ctx, fromStatus(ctx.status, undefined, ctx));
      }
    } catch (err) {
      const known = err instanceof AppError ? err : (fromStoreError(err) ?? fromHttpError(err as HttpLikeError));
      const requestId = ctx.state['requestId'] as string;
      if (known !== undefined && known.status < 500) {
        logger.debug({ request_id: requestId, code: known.code, msg: known.message }, 'request rejected');
        send(ctx, known);
        return;
      }
      logger.error({ request_id: requestId, err }, 'request failed');
      send(ctx, known ?? new AppError(500, 'internal_error', 'internal error; quote the request id when reporting it'));
    }
  };
}
