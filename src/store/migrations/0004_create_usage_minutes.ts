import type { Kysely } from 'kysely';

/** One row per index and UTC minute; the source of every throughput series and usage quota. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('usage_minutes')
    .ifNotExists()
    .addColumn('index_id', 'text', (col) => col.notNull())
    .addColumn('minute', 'bigint', (col) => col.notNull())
    .addColumn('queries', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('updates', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('bandwidth', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('reranks', 'bigint', (col) => col.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_minutes_pk', ['index_id', 'minute'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('usage_minutes').ifExists().execute();
}
