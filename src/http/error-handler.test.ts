import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { isClientGone, toAppError } from './error-handler.js';

function systemError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, open '/data/indexes/x/index.sqlite'`), { code, syscall: 'open' });
}

describe('toAppError', () => {
  it.each(['EMFILE', 'ENFILE'])('answers a system out of file descriptors (%s) with 503 and Retry-After', (code) => {
    const error = toAppError(systemError(code));
    expect(error.status).toBe(503);
    expect(error.code).toBe('service_unavailable');
    expect(error.headers).toEqual({ 'retry-after': '1' });
    // The path stays in the log, out of the answer.
    expect(error.message).not.toContain('/data');
  });

  it('keeps other system errors internal, without their details', () => {
    const error = toAppError(systemError('EACCES'));
    expect(error.status).toBe(500);
    expect(error.code).toBe('internal_error');
    expect(error.message).toBe('Internal server error');
  });

  it.each([
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['PostgreSQL shutting down', Object.assign(new Error('the database system is shutting down'), { code: '57P03' })],
    [
      'a terminated session',
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    ],
    ['a connection exception (class 08)', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['a connection lost without a code', new Error('Connection terminated unexpectedly')],
    ['SQLite busy', Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })],
    [
      'SQLite busy on a stale snapshot',
      Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY_SNAPSHOT' }),
    ],
    ['a connection that did not open in time', new Error('timeout expired')],
    ['one wrapped in another error', new Error('query failed', { cause: new Error('Connection terminated') })],
  ])('answers the store unreachable (%s) with 503 and Retry-After, without its details', (_label, cause) => {
    const error = toAppError(cause);
    expect([error.status, error.code]).toEqual([503, 'service_unavailable']);
    expect(error.headers).toEqual({ 'retry-after': '1' });
    expect(error.message).not.toContain(cause.message);
  });

  it('keeps a failing statement (not a connection) internal', () => {
    const error = toAppError(Object.assign(new Error('relation "x" does not exist'), { code: '42P01' }));
    expect([error.status, error.code]).toEqual([500, 'internal_error']);
  });
});

describe('isClientGone', () => {
  const reset = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
  const request = (raw: { complete: boolean; destroyed: boolean; readableAborted: boolean }) =>
    ({ raw }) as unknown as FastifyRequest;

  it('is a reset while the body was still arriving from a client that went away', () => {
    expect(isClientGone(reset, request({ complete: false, destroyed: true, readableAborted: true }))).toBe(true);
  });

  it('is not a reset raised after the request arrived whole (a database connection reset), client gone or not', () => {
    expect(isClientGone(reset, request({ complete: true, destroyed: true, readableAborted: false }))).toBe(false);
    expect(isClientGone(reset, request({ complete: true, destroyed: false, readableAborted: false }))).toBe(false);
  });

  it('is not another error of an unfinished request', () => {
    const other = Object.assign(new Error('boom'), { code: 'EACCES' });
    expect(isClientGone(other, request({ complete: false, destroyed: true, readableAborted: true }))).toBe(false);
  });
});
