import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import type { Logger } from 'pino';
import type { ErrorBody } from './error-body.js';
import { newRequestId } from './middleware/request-id.js';

/** What Node's HTTP parser reports, by the `code` of its error, as status, error code and message. */
function describe(code: string | undefined): { status: number; code: string; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'headers_too_large', message: 'request headers are larger than the limit' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return { status: 408, code: 'request_timeout', message: 'the request did not arrive in time' };
    default:
      return { status: 400, code: 'bad_request', message: 'malformed HTTP request' };
  }
}

/**
 * Requests Node's HTTP parser rejects before Koa sees them (headers over 16 KB, bad chunking, an
 * invalid Content-Length, a request line that is not HTTP) get the same JSON error shape as every
 * other error, with an X-Request-Id, and the connection is closed, as Node's own handler does.
 * Logged at info, without a stack: it is the client's doing.
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || response?.headersSent === true) {
      socket.destroy();
      return;
    }
    const requestId = newRequestId();
    const { status, code, message } = describe(err.code);
    const body: ErrorBody = { error: { code, message, request_id: requestId } };
    const json = JSON.stringify(body);
    logger.info({ request_id: requestId, status, code, parser_code: err.code }, 'malformed request rejected');
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(json)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        json,
    );
  });
}
