import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('messaging_instances')
    .ifNotExists()
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('customer_id', 'text', (col) => col.notNull().references('accounts.email').onDelete('cascade'))
    .addColumn('region', 'text', (col) => col.notNull())
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('token', 'text', (col) => col.notNull().unique())
    .addColumn('read_only_token', 'text', (col) => col.notNull().unique())
    .addColumn('active', 'integer', (col) => col.notNull())
    .addColumn('state', 'text', (col) => col.notNull())
    .addColumn('prod_pack_enabled', 'integer', (col) => col.notNull())
    .addColumn('creation_time', 'bigint', (col) => col.notNull())
    .addUniqueConstraint('messaging_instances_customer_region_unique', ['customer_id', 'region'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('messaging_instances').ifExists().execute();
}
