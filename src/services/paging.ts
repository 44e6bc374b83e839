import { errors } from '../errors.js';

/** Items per page at most, whatever `limit` asks. */
export const MAX_PAGE_LIMIT = 1000;
/** Items per page when a paged request names a cursor but no limit. */
export const DEFAULT_PAGE_LIMIT = 100;

/** A page of a list and the cursor of the next one (null after the last). */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** What a caller asked of a paged list; both absent means the whole list where that is allowed. */
export interface PageRequest {
  limit?: number;
  cursor?: string;
}

/** A position in a list ordered by two fields: the last item a page returned. */
export type Position = readonly [number, string];

/**
 * An opaque cursor for the position after `position`. Not signed: it only says where a list
 * continues, and every read is still limited to what the caller may see.
 */
export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/** The position a cursor of {@link encodeCursor} holds; `invalid_request` for anything else. */
export function decodeCursor(cursor: string): Position {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    !Number.isSafeInteger(value[0]) ||
    typeof value[1] !== 'string' ||
    value[1].length > 256
  ) {
    throw errors.invalidRequest('cursor is not one this list returned', [
      { field: 'cursor', message: 'use the next_cursor of the previous page' },
    ]);
  }
  return value as unknown as Position;
}

/**
 * Reads one page: asks `read` for one item more than the limit, to know whether a next page
 * exists without a second query.
 */
export async function readPage<T>(
  request: PageRequest,
  defaultLimit: number,
  read: (after: Position | undefined, limit: number) => Promise<T[]>,
  positionOf: (item: T) => Position,
): Promise<Page<T>> {
  const limit = Math.min(request.limit ?? defaultLimit, MAX_PAGE_LIMIT);
  const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
  const items = await read(after, limit + 1);
  const more = items.length > limit;
  const data = more ? items.slice(0, limit) : items;
  return { data, next_cursor: more ? encodeCursor(positionOf(data[data.length - 1])) : null };
}
