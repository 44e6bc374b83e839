import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';

/** What a client may choose as its request id: printable ASCII, at most 128 characters. */
const ACCEPTED_ID = /^[\x20-\x7e]{1,128}$/;

/**
 * Fastify `genReqId`: the client's `x-request-id` when it is sane (so a request can be followed
 * from the caller's logs into ours), otherwise a random UUID. Anything else (control characters,
 * non-ASCII, over-long values, repeated headers) is replaced rather than trusted into the logs.
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && ACCEPTED_ID.test(given) ? given : randomUUID();
}

/**
 * Returns the request id on every response, errors and 404s included: the app's first onRequest
 * hook sets it (Fastify keeps headers set before an error), and {@link handleFrameworkError} sets
 * it on the responses Fastify gives before any hook runs.
 */
export function setRequestIdHeader(request: FastifyRequest, reply: FastifyReply): void {
  reply.header(REQUEST_ID_HEADER, request.id);
}
