import type { Kysely } from 'kysely';

/**
 * Management API keys beside each account's own key: a name, the actions and indexes they allow
 * (JSON arrays as text, the same in both dialects) and an expiry; only a scrypt hash of the secret.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .ifNotExists()
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('account_email', 'text', (col) => col.notNull().references('accounts.email').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('key_hash', 'text', (col) => col.notNull())
    .addColumn('actions', 'text', (col) => col.notNull())
    .addColumn('index_ids', 'text')
    .addColumn('expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addUniqueConstraint('api_keys_account_name_unique', ['account_email', 'name'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('api_keys').ifExists().execute();
}
