import type { Kysely, Transaction } from 'kysely';
import { afterPosition } from '../keyset.js';
import type { ApiKeysTable, DB } from '../schema.js';

type Executor = Kysely<DB> | Transaction<DB>;
export type ApiKeyRow = ApiKeysTable;

export async function insertApiKey(db: Executor, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** The key with this id, whoever owns it (callers compare the account). */
export function findApiKey(db: Executor, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * An account's keys by creation, then name; with `after` (the last key of a previous page), only
 * those that come after it; at most `limit` when given.
 */
export function listApiKeys(
  db: Executor,
  accountEmail: string,
  page: { after?: readonly [number, string]; limit?: number } = {},
): Promise<ApiKeyRow[]> {
  let query = db.selectFrom('api_keys').selectAll().where('account_email', '=', accountEmail);
  const { after, limit } = page;
  if (after) query = query.where(afterPosition(['created_at', 'name'], after));
  query = query.orderBy('created_at').orderBy('name');
  return (limit === undefined ? query : query.limit(limit)).execute();
}

export async function deleteApiKey(db: Executor, accountEmail: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('api_keys')
    .where('id', '=', id)
    .where('account_email', '=', accountEmail)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
