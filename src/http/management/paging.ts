import { errors } from '../../errors.js';
import { MAX_PAGE_LIMIT, type PageRequest } from '../../services/paging.js';

/**
 * The page a list route was asked for: undefined when the query names neither `limit` nor
 * `cursor` (the whole list, as the routes answered before they had pages).
 */
export function pageRequestOf(query: { limit?: string; cursor?: string }): PageRequest | undefined {
  if (query.limit === undefined && query.cursor === undefined) return undefined;
  const limit = query.limit === undefined ? undefined : Number(query.limit);
  if (limit !== undefined && limit > MAX_PAGE_LIMIT) {
    throw errors.invalidRequest(`limit must be at most ${MAX_PAGE_LIMIT}`, [
      { field: 'limit', message: `must be 1-${MAX_PAGE_LIMIT}` },
    ]);
  }
  return { limit, cursor: query.cursor };
}
