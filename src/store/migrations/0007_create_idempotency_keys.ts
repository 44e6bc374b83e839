import type { Kysely } from 'kysely';

/**
 * The first answer to each `Idempotency-Key` of an account, for 24 hours, so a retried create
 * answers the same instead of creating twice. `status` is null while the first request runs.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .ifNotExists()
    .addColumn('account_email', 'text', (col) => col.notNull().references('accounts.email').onDelete('cascade'))
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('fingerprint', 'text', (col) => col.notNull())
    .addColumn('status', 'integer')
    .addColumn('body', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_email', 'key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').ifExists().execute();
}
