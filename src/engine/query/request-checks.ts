import { AppError } from '../../errors.js';

/* Argument checks shared by the IndexEngine methods; each throws `invalid_request`. */

export function checkNamespace(namespace: unknown): void {
  if (typeof namespace !== 'string') throw new AppError('invalid_request', 'namespace must be a string');
}

export function checkIds(ids: unknown): void {
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) {
    throw new AppError('invalid_request', 'ids must be an array of strings', {
      details: [{ field: 'ids', message: 'must be strings' }],
    });
  }
}

export function checkPrefix(prefix: unknown, allowEmpty: boolean): void {
  if (typeof prefix !== 'string' || (!allowEmpty && prefix === '')) {
    throw new AppError('invalid_request', `prefix must be a ${allowEmpty ? '' : 'non-empty '}string`, {
      details: [{ field: 'prefix', message: 'invalid' }],
    });
  }
}

/**
 * Largest page of documents one range or prefix fetch returns, whatever the index's
 * `max_reads_per_request` (an unlimited index still pages): bounds a response's size and keeps the
 * value within what SQLite's LIMIT takes.
 */
export const MAX_PAGE_SIZE = 10_000;

export function checkLimit(limit: unknown): void {
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_PAGE_SIZE) {
    throw new AppError('invalid_request', `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`, {
      details: [{ field: 'limit', message: `must be 1..${MAX_PAGE_SIZE}` }],
    });
  }
}

/** An opaque range cursor: the base64url of the last id returned. */
export function encodeCursor(lastId: string): string {
  return Buffer.from(lastId).toString('base64url');
}

/**
 * The id after which a range continues; "" (and the SDK's "0") start from the beginning. Only what
 * {@link encodeCursor} makes of an id is accepted: anything else decodes to bytes that sort after
 * every id (an empty page that reads as the end) or before them (a silent restart).
 */
export function decodeCursor(cursor: unknown): string {
  if (cursor === '' || cursor === '0' || cursor === undefined) return '';
  if (typeof cursor === 'string' && /^[A-Za-z0-9_-]+$/.test(cursor)) {
    const lastId = Buffer.from(cursor, 'base64url').toString();
    if (lastId !== '' && encodeCursor(lastId) === cursor && !lastId.includes('\u0000')) return lastId;
  }
  throw new AppError('invalid_request', 'cursor is not a cursor returned by range', {
    details: [{ field: 'cursor', message: 'invalid' }],
  });
}
