import type { Kysely, Transaction } from 'kysely';
import type { DB, MessagingInstancesTable } from '../schema.js';

type Executor = Kysely<DB> | Transaction<DB>;
export type MessagingInstanceRow = MessagingInstancesTable;

export async function insertMessagingInstances(db: Executor, rows: MessagingInstanceRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('messaging_instances').values(rows).execute();
}

export function listMessagingInstances(db: Executor, customerId: string): Promise<MessagingInstanceRow[]> {
  return db
    .selectFrom('messaging_instances')
    .selectAll()
    .where('customer_id', '=', customerId)
    .orderBy('region')
    .execute();
}

export function findOwnedMessagingInstance(
  db: Executor,
  customerId: string,
  id: string,
): Promise<MessagingInstanceRow | undefined> {
  return db
    .selectFrom('messaging_instances')
    .selectAll()
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}

export async function updateOwnedMessagingInstance(
  db: Executor,
  customerId: string,
  id: string,
  changes: Partial<Pick<MessagingInstanceRow, 'type' | 'prod_pack_enabled'>>,
): Promise<boolean> {
  const result = await db
    .updateTable('messaging_instances')
    .set(changes)
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
