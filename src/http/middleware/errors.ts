import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
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
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  if (status === 413) return new AppError(413, 'payload_too_large', 'request body is larger than the limit');
  if (status === 415) return new AppError(415, 'unsupported_media_type', 'send the body as application/json');
  if (status === 400 && (err.type === 'entity.parse.failed' || /json/i.test(err.message ?? ''))) {
    return new AppError(400, 'invalid_json', 'request body is not valid JSON');
  }
  if (status === 405) return new AppError(405, 'method_not_allowed', err.message ?? 'method not allowed');
  if (status === 501) return new AppError(501, 'not_implemented', err.message ?? 'not implemented');
  return new AppError(status, status === 404 ? 'not_found' : 'bad_request', err.expose ? (err.message ?? 'bad request') : 'bad request');
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
 * The one place errors become responses. Domain errors keep their code and message; anything else
 * is a 500 whose message and stack go to the log only. Unmatched routes are 404 in the same shape.
 */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        send(ctx, new AppError(404, 'not_found', `no route for ${ctx.method} ${ctx.path}`));
      }
    } catch (err) {
      const known = err instanceof AppError ? err : fromHttpError(err as HttpLikeError);
      const requestId = ctx.state['requestId'] as string;
      if (known !== undefined && known.status < 500) {
        logger.debug({ request_id: requestId, code: known.code, msg: known.message }, 'request rejected');
        send(ctx, known);
        return;
      }
      logger.error({ request_id: requestId, err }, 'request failed');
      send(ctx, known ?? new AppError(500, 'internal_error', 'internal error; quote the request id when reporting it'));
      if (known === undefined) ctx.status = 500;
    }
  };
}
