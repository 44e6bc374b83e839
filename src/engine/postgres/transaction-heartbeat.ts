import { sql, type Transaction } from 'kysely';
import type { DB } from '../../store/schema.js';

/**
 * How often a transaction that waits on this node sends PostgreSQL a statement when the store does
 * not say (see Store.transactionHeartbeatMs): inside the default idle-in-transaction timeout that
 * ends the session of a node frozen mid-write or mid-read.
 */
export const HEARTBEAT_MS = 1_500;

/**
 * Runs `work` in `trx` and meanwhile sends a statement every `intervalMs`. A write holds its
 * index's head lock while it waits for the local copy (behind a catch-up of any length) or applies
 * a backlog page by page, and a catch-up holds its snapshot while it does; to PostgreSQL those
 * waits look idle, like a frozen node's, which it ends. The beat is a SHOW, which takes no
 * snapshot: a repeatable-read transaction's snapshot still begins at the work's first query.
 * Statements on one connection run in order, so a beat only ever waits behind the work's own.
 */
export async function withHeartbeat<T>(
  trx: Transaction<DB>,
  work: () => Promise<T>,
  intervalMs = HEARTBEAT_MS,
): Promise<T> {
  /** The beat in flight, if any. */
  let beat: Promise<unknown> | undefined;
  // A failed beat needs no report: the connection is gone, or the transaction failed, and the
  // work's own statements say so. One at a time: beats queued behind a long statement add nothing.
  const timer = setInterval(() => {
    beat ??= sql`show server_version`
      .execute(trx)
      .catch(() => undefined)
      .finally(() => {
        beat = undefined;
      });
  }, intervalMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    await beat; // before the commit (or rollback) that follows is sent
  }
}
