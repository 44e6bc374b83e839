import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('search_indexes')
    .ifNotExists()
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('customer_id', 'text', (col) => col.notNull().references('accounts.email').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('endpoint', 'text', (col) => col.notNull().unique())
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('region', 'text', (col) => col.notNull())
    .addColumn('integration_email', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('token', 'text', (col) => col.notNull().unique())
    .addColumn('read_only_token', 'text', (col) => col.notNull().unique())
    .addColumn('max_vector_count', 'bigint', (col) => col.notNull())
    .addColumn('max_monthly_reranks', 'bigint', (col) => col.notNull())
    .addColumn('max_daily_updates', 'bigint', (col) => col.notNull())
    .addColumn('max_daily_queries', 'bigint', (col) => col.notNull())
    .addColumn('max_monthly_bandwidth', 'bigint', (col) => col.notNull())
    .addColumn('max_writes_per_second', 'bigint', (col) => col.notNull())
    .addColumn('max_query_per_second', 'bigint', (col) => col.notNull())
    .addColumn('max_reads_per_request', 'bigint', (col) => col.notNull())
    .addColumn('max_writes_per_request', 'bigint', (col) => col.notNull())
    .addColumn('creation_time', 'bigint', (col) => col.notNull())
    .addColumn('input_enrichment_enabled', 'integer', (col) => col.notNull())
    .addUniqueConstraint('search_indexes_customer_name_unique', ['customer_id', 'name'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('search_indexes').ifExists().execute();
}
