import { sql, type Transaction } from 'kysely';
import type { DB } from '../../store/schema.js';

/**
 * How often a write transaction that waits on this node sends PostgreSQL a statement: well inside
 * the idle-in-transaction timeout (60 s, see store/database.ts) that ends the session of a node
 * frozen mid-write.
 */
export const HEARTBEAT_MS = 15_000;

/**
 * Runs `work` in `trx` and meanwhile sends `SELECT 1` every `intervalMs`. A write holds its
 * index's head lock while it waits for the local copy (behind a catch-up of any length) or applies
 * a backlog page by page; to PostgreSQL that wait looks idle, like a frozen node's, which it ends.
 * Statements on one connection run in order, so a beat only ever waits behind the work's own.
 */
export async function withHeartbeat<T>(
  trx: Transaction<DB>,
  work: () => Promise<T>,
  intervalMs = HEARTBEAT_MS,
): Promise<T> {
  let beat: Promise<unknown> = Promise.resolve();
  // A failed beat needs no report: the connection is gone, and the work's next statement fails.
  const timer = setInterval(() => {
    beat = sql`select 1`.execute(trx).catch(() => undefined);
  }, intervalMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    await beat; // before the commit (or rollback) that follows is sent
  }
}
