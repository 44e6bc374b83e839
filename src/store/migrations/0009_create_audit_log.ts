import type { Kysely } from 'kysely';

/** Who changed what through the management API, and when; read newest first per account. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .ifNotExists()
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('account_email', 'text', (col) => col.notNull().references('accounts.email').onDelete('cascade'))
    .addColumn('time', 'bigint', (col) => col.notNull())
    .addColumn('key_id', 'text')
    .addColumn('key_name', 'text', (col) => col.notNull())
    .addColumn('request_id', 'text', (col) => col.notNull())
    .addColumn('client_address', 'text', (col) => col.notNull())
    .addColumn('action', 'text', (col) => col.notNull())
    .addColumn('target', 'text')
    .addColumn('details', 'text')
    .execute();
  await db.schema
    .createIndex('audit_log_account_time')
    .ifNotExists()
    .on('audit_log')
    .columns(['account_email', 'time', 'id'])
    .execute();
  await db.schema.createIndex('audit_log_time').ifNotExists().on('audit_log').column('time').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_log').ifExists().execute();
}
