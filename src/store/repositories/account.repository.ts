import type { Kysely, Transaction } from 'kysely';
import type { AccountsTable, DB } from '../schema.js';

type Executor = Kysely<DB> | Transaction<DB>;
export type AccountRow = AccountsTable;

export function findAccount(db: Executor, email: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function insertAccount(db: Executor, row: AccountRow): Promise<void> {
  await db.insertInto('accounts').values(row).execute();
}

export async function updateAccountKeyHash(db: Executor, email: string, apiKeyHash: string): Promise<boolean> {
  const result = await db
    .updateTable('accounts')
    .set({ api_key_hash: apiKeyHash })
    .where('email', '=', email)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteAccount(db: Executor, email: string): Promise<boolean> {
  const result = await db.deleteFrom('accounts').where('email', '=', email).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export function listAccounts(db: Executor): Promise<Pick<AccountRow, 'email' | 'created_at'>[]> {
  return db.selectFrom('accounts').select(['email', 'created_at']).orderBy('email').execute();
}

export async function countAccounts(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Serialises writes that depend on what an account already owns (free-index limit): on
 * PostgreSQL it takes the account row lock; SQLite transactions are already serial.
 */
export async function lockAccount(db: Transaction<DB>, email: string, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect === 'postgres') {
    await db.selectFrom('accounts').select('email').where('email', '=', email).forUpdate().execute();
  }
}
