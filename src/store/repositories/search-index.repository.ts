import { CompiledQuery, type DialectAdapter, type Kysely, type Transaction } from 'kysely';
import type { Store } from '../database.js';
import type { DB, SearchIndexesTable } from '../schema.js';

type Executor = Kysely<DB> | Transaction<DB>;
export type SearchIndexRow = SearchIndexesTable;

/**
 * Inserts an index row. Its SQL is built once per database (Kysely's builder cost about 10 µs per
 * call warm and a tenth of a create's server CPU between requests, issue #11), keyed by the
 * dialect's adapter, which a Kysely instance shares with its transactions (and with what
 * `withSchema` or `withPlugin` derive from it, whose schema or plugins this would skip: nothing
 * here uses them). The values go in the order of {@link INSERT_COLUMNS}, every one of them: the
 * builder leaves out a column whose value is undefined, the built SQL never does.
 */
export async function insertSearchIndex(db: Executor, row: SearchIndexRow): Promise<void> {
  const text = builtOnce(insertSql, db.getExecutor().adapter, () => {
    const template = Object.fromEntries(INSERT_COLUMNS.map((column) => [column, null]));
    return db
      .insertInto('search_indexes')
      .values(template as unknown as SearchIndexRow)
      .compile().sql;
  });
  const values = INSERT_COLUMNS.map((column) => row[column]);
  const missing = values.indexOf(undefined as never);
  if (missing >= 0) throw new TypeError(`An index row needs a value for ${INSERT_COLUMNS[missing]}`);
  await db.executeQuery(CompiledQuery.raw(text, values));
}

/** Every column of an index row (TypeScript refuses a missing or unknown one), in the insert's order. */
const INSERT_COLUMNS = Object.keys({
  id: true,
  customer_id: true,
  name: true,
  endpoint: true,
  type: true,
  region: true,
  integration_email: true,
  token: true,
  read_only_token: true,
  max_vector_count: true,
  max_monthly_reranks: true,
  max_daily_updates: true,
  max_daily_queries: true,
  max_monthly_bandwidth: true,
  max_writes_per_second: true,
  max_query_per_second: true,
  max_reads_per_request: true,
  max_writes_per_request: true,
  creation_time: true,
  input_enrichment_enabled: true,
} satisfies Record<keyof SearchIndexRow, true>) as (keyof SearchIndexRow)[];

const insertSql = new WeakMap<DialectAdapter, string>();

/** The SQL text `cache` keeps for `database`, built by `build` the first time it is asked for. */
function builtOnce<Database extends object>(
  cache: WeakMap<Database, string>,
  database: Database,
  build: () => string,
): string {
  let text = cache.get(database);
  if (text === undefined) {
    text = build();
    cache.set(database, text);
  }
  return text;
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
 * which changes its node's replica must hold. Every data-plane request runs it, so its SQL is built
 * once per database and runs as a prepared statement.
 */
export async function findSearchIndexWithHeadByEndpoint(
  store: Pick<Store, 'db' | 'prepared'>,
  endpoint: string,
): Promise<SearchIndexRowWithHead | undefined> {
  const text = builtOnce(withHeadSql, store.db, () => withHeadQuery(store.db, endpoint).compile().sql);
  const [row] = store.prepared
    ? await store.prepared<SearchIndexRowWithHead>(WITH_HEAD_STATEMENT, text, [endpoint])
    : (await store.db.executeQuery(CompiledQuery.raw(text, [endpoint]) as CompiledQuery<SearchIndexRowWithHead>)).rows;
  if (!row) return undefined;
  return { ...row, record_head: Number(row.record_head ?? 0) };
}

const WITH_HEAD_STATEMENT = 'searchplane_index_with_head_by_endpoint';
/** The statement's SQL for each database (the dialect decides its text). */
const withHeadSql = new WeakMap<Kysely<DB>, string>();

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

export function listSearchIndexes(db: Executor, customerId: string): Promise<SearchIndexRow[]> {
  return db
    .selectFrom('search_indexes')
    .selectAll()
    .where('customer_id', '=', customerId)
    .orderBy('creation_time')
    .orderBy('name')
    .execute();
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

export async function updateOwnedSearchIndex(
  db: Executor,
  customerId: string,
  id: string,
  changes: Partial<Pick<SearchIndexRow, 'name' | 'token' | 'read_only_token'>>,
): Promise<boolean> {
  const result = await db
    .updateTable('search_indexes')
    .set(changes)
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteOwnedSearchIndex(db: Executor, customerId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('search_indexes')
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
