import { randomFillSync } from 'node:crypto';
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
  return typeof given === 'string' && ACCEPTED_ID.test(given) ? given : randomUuid();
}

/** UUIDs drawn per refill of the random pool. */
const POOL_UUIDS = 4096;
const pool = Buffer.alloc(16 * POOL_UUIDS);
let poolOffset = pool.length;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * A random (version 4) UUID, as `crypto.randomUUID` makes one, from a pool of random bytes 32 times
 * larger than Node's: its refill of 128 UUIDs' bytes, cold between requests, was most of what a
 * request id cost on every request without one (issue #11).
 */
export function randomUuid(): string {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const b = pool;
  const at = poolOffset;
  poolOffset += 16;
  const version = HEX[(b[at + 6] & 0x0f) | 0x40];
  const variant = HEX[(b[at + 8] & 0x3f) | 0x80];
  return `${HEX[b[at]]}${HEX[b[at + 1]]}${HEX[b[at + 2]]}${HEX[b[at + 3]]}-${HEX[b[at + 4]]}${HEX[b[at + 5]]}-${version}${HEX[b[at + 7]]}-${variant}${HEX[b[at + 9]]}-${HEX[b[at + 10]]}${HEX[b[at + 11]]}${HEX[b[at + 12]]}${HEX[b[at + 13]]}${HEX[b[at + 14]]}${HEX[b[at + 15]]}`;
}

/**
 * Returns the request id on every response, errors and 404s included: the first onRequest hook of
 * the app sets it (Fastify keeps headers set before an error), and {@link handleFrameworkError}
 * sets it on the responses Fastify gives before any hook runs. An onSend hook would do the same
 * for a second hook run on every response (issue #11).
 */
export function setRequestIdHeader(request: FastifyRequest, reply: FastifyReply): void {
  reply.header(REQUEST_ID_HEADER, request.id);
}
