import type { Kysely, Transaction } from 'kysely';
import { afterPosition } from '../keyset.js';
import type { AuditLogTable, DB } from '../schema.js';

type Executor = Kysely<DB> | Transaction<DB>;
export type AuditLogRow = AuditLogTable;

export async function insertAuditEntry(db: Executor, row: AuditLogRow): Promise<void> {
  await db.insertInto('audit_log').values(row).execute();
}

/**
 * An account's entries newest first, with `from` ≤ time < `to` (Unix ms); with `after` (the last
 * of a previous page), those after it; at most `limit`.
 */
export function listAuditEntries(
  db: Executor,
  accountEmail: string,
  options: { from: number; to?: number; after?: readonly [number, string]; limit: number },
): Promise<AuditLogRow[]> {
  let query = db
    .selectFrom('audit_log')
    .selectAll()
    .where('account_email', '=', accountEmail)
    .where('time', '>=', options.from);
  if (options.to !== undefined) query = query.where('time', '<', options.to);
  if (options.after) query = query.where(afterPosition(['time', 'id'], options.after, 'desc'));
  return query.orderBy('time', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
}

/** Deletes every account's entries older than `before` (Unix ms). */
export async function pruneAuditEntries(db: Executor, before: number): Promise<void> {
  await db.deleteFrom('audit_log').where('time', '<', before).execute();
}
