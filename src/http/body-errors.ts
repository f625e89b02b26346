import { AppError } from '../errors/app-errors.js';

/** Content codings a JSON body may be sent in (decoded by the body parser); 415 names them. */
const acceptedEncodings = 'gzip, deflate, br';

/** What raw-body, co-body, inflation and zlib attach to the errors they throw. */
interface BodyReadError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  type?: string;
  code?: string;
  limit?: number;
  message?: string;
}

export function payloadTooLarge(limit: number | undefined): AppError {
  return new AppError(
    413,
    'payload_too_large',
    limit === undefined
      ? 'request body is larger than the limit'
      : `request body is larger than the limit of ${limit} bytes`,
    limit === undefined ? undefined : { limit_bytes: limit },
    // The rest of the body is not read: closing is cheaper than draining it.
    { Connection: 'close' },
  );
}

/**
 * A failure to read or decode a request body as the client's fault, in the error shape; undefined
 * for anything else (a bug, answered 500). Every way a body can be bad maps to a 4xx:
 * - over the limit (declared or counted, before or after decompression): 413 `payload_too_large`
 *   (co-body truncates Content-Length to 32 bits, so json-body.ts checks the declared length first);
 * - a Content-Encoding other than gzip, deflate, br or identity: 415 `unsupported_encoding`;
 * - compressed data that does not decompress (corrupt, truncated): 400 `invalid_compression`;
 * - malformed JSON: 400 `invalid_json`;
 * - fewer or more bytes than Content-Length, or a request aborted mid-body: 400 `bad_request`.
 */
export function fromBodyError(error: unknown): AppError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const err = error as BodyReadError;
  const message = err.message ?? '';
  if (
    typeof err.code === 'string' &&
    (err.code.startsWith('Z_') || err.code.startsWith('ERR_BROTLI') || err.code.startsWith('ERR__ERROR'))
  ) {
    return new AppError(400, 'invalid_compression', 'request body does not decompress with its Content-Encoding');
  }
  const status = err.status ?? err.statusCode;
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  if (status === 413) return payloadTooLarge(err.limit);
  if (status === 415 && message.startsWith('Unsupported Content-Encoding')) {
    return new AppError(
      415,
      'unsupported_encoding',
      `Content-Encoding is not supported; send the body as identity, ${acceptedEncodings}`,
      undefined,
      { 'Accept-Encoding': acceptedEncodings },
    );
  }
  if (status === 415) return new AppError(415, 'unsupported_media_type', 'send the body as application/json');
  if (err.type === 'request.size.invalid') {
    return new AppError(400, 'bad_request', 'request body length does not match Content-Length');
  }
  if (err.type === 'request.aborted')
    return new AppError(400, 'bad_request', 'request was aborted before its body arrived');
  if (status === 400 && (err.type === 'entity.parse.failed' || /json/i.test(message))) {
    return new AppError(400, 'invalid_json', 'request body is not valid JSON');
  }
  return undefined;
}
