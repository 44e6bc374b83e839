import type { Kysely, Transaction } from 'kysely';
import type { DB, IdempotencyKeysTable } from '../schema.js';

type Executor = Kysely<DB> | Transaction<DB>;
export type IdempotencyRow = IdempotencyKeysTable;

export function findIdempotencyKey(
  db: Executor,
  accountEmail: string,
  key: string,
): Promise<IdempotencyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('account_email', '=', accountEmail)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Inserts a claim; throws a unique violation when the account already holds the key. */
export async function insertIdempotencyKey(db: Executor, row: IdempotencyRow): Promise<void> {
  await db.insertInto('idempotency_keys').values(row).execute();
}

export async function completeIdempotencyKey(
  db: Executor,
  accountEmail: string,
  key: string,
  answer: { status: number; body: string },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set(answer)
    .where('account_email', '=', accountEmail)
    .where('key', '=', key)
    .execute();
}

/** Deletes a key, or only a claim of it made at `createdAt` (another request may have taken it over). */
export async function deleteIdempotencyKey(
  db: Executor,
  accountEmail: string,
  key: string,
  createdAt?: number,
): Promise<void> {
  let query = db.deleteFrom('idempotency_keys').where('account_email', '=', accountEmail).where('key', '=', key);
  if (createdAt !== undefined) query = query.where('created_at', '=', createdAt);
  await query.execute();
}

/** Deletes an account's keys made before `before` (Unix ms). */
export async function pruneIdempotencyKeys(db: Executor, accountEmail: string, before: number): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('account_email', '=', accountEmail)
    .where('created_at', '<', before)
    .execute();
}
