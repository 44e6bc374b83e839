import type { ExpressionBuilder, Kysely, Transaction, UpdateObject } from 'kysely';
import type { Store } from '../database.js';
import { afterPosition } from '../keyset.js';
import type { DB, SearchIndexesTable } from '../schema.js';

type Executor = Kysely<DB> | Transaction<DB>;
export type SearchIndexRow = SearchIndexesTable;

/** Inserts an index row. */
export async function insertSearchIndex(db: Executor, row: SearchIndexRow): Promise<void> {
  await db.insertInto('search_indexes').values(row).execute();
}

/** The index with this id, whoever owns it (callers check ownership: see SearchIndexService). */
export function findSearchIndexById(db: Executor, id: string): Promise<SearchIndexRow | undefined> {
  return db.selectFrom('search_indexes').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findOwnedSearchIndexByName(
  db: Executor,
  customerId: string,
  name: string,
): Promise<Pick<SearchIndexRow, 'id'> | undefined> {
  return db
    .selectFrom('search_indexes')
    .select('id')
    .where('customer_id', '=', customerId)
    .where('name', '=', name)
    .executeTakeFirst();
}

export function findSearchIndexByEndpoint(db: Executor, endpoint: string): Promise<SearchIndexRow | undefined> {
  return db.selectFrom('search_indexes').selectAll().where('endpoint', '=', endpoint).executeTakeFirst();
}

/** An index row with the last change number of its data in PostgreSQL (0 before its first write). */
export type SearchIndexRowWithHead = SearchIndexRow & { record_head: number };

/**
 * PostgreSQL mode: the index behind an endpoint together with its data's head (index_heads, a
 * table of that mode only), in one statement, so a data-plane read needs no second query to know
 * which changes its node's replica must hold. Every data-plane request runs it, so it runs as a
 * prepared statement where the store has them.
 */
export async function findSearchIndexWithHeadByEndpoint(
  store: Pick<Store, 'db' | 'prepared'>,
  endpoint: string,
): Promise<SearchIndexRowWithHead | undefined> {
  const query = withHeadQuery(store.db, endpoint);
  const [row] = store.prepared
    ? await store.prepared<SearchIndexRowWithHead>(WITH_HEAD_STATEMENT, query.compile().sql, [endpoint])
    : await query.execute();
  if (!row) return undefined;
  return { ...row, record_head: Number(row.record_head ?? 0) };
}

const WITH_HEAD_STATEMENT = 'searchplane_index_with_head_by_endpoint';

function withHeadQuery(db: Kysely<DB>, endpoint: string) {
  return db
    .selectFrom('search_indexes')
    .selectAll('search_indexes')
    .select((eb) =>
      eb
        .selectFrom('index_heads')
        .select('index_heads.seq')
        .whereRef('index_heads.index_id', '=', 'search_indexes.id')
        .as('record_head'),
    )
    .where('search_indexes.endpoint', '=', endpoint);
}

/**
 * An account's indexes by creation, then name (unique per account); only those of `onlyIds` when
 * given; with `after` (the last of a previous page), those after it; at most `limit`.
 */
export function listSearchIndexes(
  db: Executor,
  customerId: string,
  options: { onlyIds?: readonly string[] | null; after?: readonly [number, string]; limit?: number } = {},
): Promise<SearchIndexRow[]> {
  const { onlyIds, after, limit } = options;
  if (onlyIds?.length === 0) return Promise.resolve([]);
  let query = db.selectFrom('search_indexes').selectAll().where('customer_id', '=', customerId);
  if (onlyIds) query = query.where('id', 'in', [...onlyIds]);
  if (after) query = query.where(afterPosition(['creation_time', 'name'], after));
  query = query.orderBy('creation_time').orderBy('name');
  return (limit === undefined ? query : query.limit(limit)).execute();
}

/** Every index (of every account when no customer is given), oldest first. */
export function listSearchIndexesOfAll(db: Executor): Promise<SearchIndexRow[]> {
  return db.selectFrom('search_indexes').selectAll().orderBy('customer_id').orderBy('creation_time').execute();
}

/** Which of `ids` are existing indexes (in chunks, so any number of ids works on both dialects). */
export async function existingSearchIndexIds(db: Executor, ids: string[]): Promise<string[]> {
  const found: string[] = [];
  for (let start = 0; start < ids.length; start += 500) {
    const rows = await db
      .selectFrom('search_indexes')
      .select('id')
      .where('id', 'in', ids.slice(start, start + 500))
      .execute();
    for (const row of rows) found.push(row.id);
  }
  return found;
}

export async function countSearchIndexesOfType(db: Executor, customerId: string, type: string): Promise<number> {
  const row = await db
    .selectFrom('search_indexes')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('customer_id', '=', customerId)
    .where('type', '=', type)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function updateOwnedSearchIndex(
  db: Executor,
  customerId: string,
  id: string,
  changes: Partial<Pick<SearchIndexRow, 'name' | 'token' | 'read_only_token'>>,
): Promise<boolean> {
  return updateOwned(db, customerId, id, changes);
}

type IndexUpdate = UpdateObject<DB, 'search_indexes'>;

/** Applies `set` to index `id` when `customerId` owns it; whether it did. */
async function updateOwned(
  db: Executor,
  customerId: string,
  id: string,
  set: IndexUpdate | ((eb: ExpressionBuilder<DB, 'search_indexes'>) => IndexUpdate),
): Promise<boolean> {
  const result = await db
    .updateTable('search_indexes')
    .set(set)
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Gives an owned index new tokens. With `graceUntil` (Unix ms) the current ones become its previous
 * tokens until then, read and replaced in the same statement so no rotation in between is lost;
 * without, any previous tokens are dropped.
 */
export function rotateOwnedSearchIndexTokens(
  db: Executor,
  customerId: string,
  id: string,
  tokens: Pick<SearchIndexRow, 'token' | 'read_only_token'>,
  graceUntil: number | null,
): Promise<boolean> {
  return updateOwned(db, customerId, id, (eb) => ({
    ...tokens,
    previous_token: graceUntil === null ? null : eb.ref('token'),
    previous_read_only_token: graceUntil === null ? null : eb.ref('read_only_token'),
    previous_tokens_expire_at: graceUntil,
  }));
}

/** Gives an owned index to another account. */
export function moveOwnedSearchIndex(
  db: Executor,
  customerId: string,
  id: string,
  targetAccount: string,
): Promise<boolean> {
  return updateOwned(db, customerId, id, { customer_id: targetAccount });
}

export async function deleteOwnedSearchIndex(db: Executor, customerId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('search_indexes')
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
