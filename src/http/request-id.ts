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
const UUID_LENGTH = 36;
const random = Buffer.alloc(16 * POOL_UUIDS);
const text = Buffer.alloc(UUID_LENGTH * POOL_UUIDS);
const view = new DataView(text.buffer, text.byteOffset, text.byteLength);
/** A byte's two hex digits as one little-endian 16-bit unit: the first digit in the low byte. */
const HEX_PAIRS = Uint16Array.from({ length: 256 }, (_, byte) => {
  const digits = byte.toString(16).padStart(2, '0');
  return digits.charCodeAt(0) | (digits.charCodeAt(1) << 8);
});
const DASH = 0x2d;
const VERSION_4 = 0x34; // '4'
const VARIANTS = Buffer.from('89ab');
/** The pool as one string, UUIDs back to back; each request id is a slice of it. */
let pooled = '';
let next = POOL_UUIDS;

/**
 * A random (version 4) UUID, as `crypto.randomUUID` makes one. The pool is 32 times larger than
 * Node's (its refill, cold between requests, was most of what an id cost), and is written out as
 * text in one pass: an id is then a slice of one flat string, where joining twenty parts per id
 * made a rope that the logger's JSON escaping and the header write each flattened again (issue
 * #11).
 */
export function randomUuid(): string {
  if (next === POOL_UUIDS) refill();
  const at = next++ * UUID_LENGTH;
  return pooled.slice(at, at + UUID_LENGTH);
}

function refill(): void {
  randomFillSync(random);
  for (let uuid = 0; uuid < POOL_UUIDS; uuid++) {
    const from = uuid * 16;
    const to = uuid * UUID_LENGTH;
    hexDigits(to, from, 4);
    text[to + 8] = DASH;
    hexDigits(to + 9, from + 4, 2);
    text[to + 13] = DASH;
    hexDigits(to + 14, from + 6, 2);
    text[to + 18] = DASH;
    hexDigits(to + 19, from + 8, 2);
    text[to + 23] = DASH;
    hexDigits(to + 24, from + 10, 6);
    // Version 4 in the 13th digit; the variant's bits (10) atop the 17th, whose other two stay random.
    text[to + 14] = VERSION_4;
    text[to + 19] = VARIANTS[(random[from + 8] >> 4) & 3];
  }
  pooled = text.toString('latin1');
  next = 0;
}

function hexDigits(to: number, from: number, bytes: number): void {
  for (let i = 0; i < bytes; i++) view.setUint16(to + 2 * i, HEX_PAIRS[random[from + i]], true);
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
