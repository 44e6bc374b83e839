import type { Kysely } from 'kysely';

/**
 * The tokens a rotation with a grace period replaced, and until when (Unix ms) they still open the
 * index's data plane. One column per statement: SQLite adds one column per ALTER TABLE.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('search_indexes').addColumn('previous_token', 'text').execute();
  await db.schema.alterTable('search_indexes').addColumn('previous_read_only_token', 'text').execute();
  await db.schema.alterTable('search_indexes').addColumn('previous_tokens_expire_at', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['previous_tokens_expire_at', 'previous_read_only_token', 'previous_token']) {
    await db.schema.alterTable('search_indexes').dropColumn(column).execute();
  }
}
