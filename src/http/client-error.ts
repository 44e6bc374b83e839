import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

/**
 * Fastify's `clientErrorHandler`: requests Node's HTTP parser refuses before Fastify sees them
 * (headers over the size limit, malformed framing, a request that takes too long to arrive). They
 * get the service's error envelope with a stable `code`, not Fastify's default body; the
 * connection is closed, since the parser cannot tell where the next request would begin.
 */
export function handleClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const refusal = clientRefusal(error.code);
  // Almost always a misbehaving client or proxy, not something for the operator's error log.
  this.log.debug({ err: error }, 'request refused by the HTTP parser');
  if (socket.writable) {
    const body = JSON.stringify({ error: refusal.message, code: refusal.code, status: refusal.status });
    socket.write(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\nConnection: close\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

function clientRefusal(code: string | undefined): AppError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('headers_too_large', 'The request headers are larger than the server accepts');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('request_timeout', 'The request did not arrive in time');
    default:
      return new AppError('malformed_request', 'The request is not valid HTTP/1.1');
  }
}
