import { descriptorRefusal } from '../../descriptor-refusal.js';
import { errors } from '../../errors.js';

/**
 * Whether SQLite failed to open an index's database for want of a file descriptor. SQLite says
 * only that it could not open the file (SQLITE_CANTOPEN), as it does for a missing folder or a
 * permission, so a descriptor is asked for at once: refused the same way, that was the cause. At
 * best effort: a descriptor another thread gives back in between makes it a 500 after all.
 */
export function sqliteOutOfDescriptors(error: unknown): boolean {
  if ((error as { code?: unknown } | undefined)?.code !== 'SQLITE_CANTOPEN') return false;
  return descriptorRefusal() !== undefined;
}

/**
 * The error to throw for SQLite's failure to open: a 503 the client retries when it was for want
 * of a descriptor (connections and indexes give theirs back), else the error itself. Ask before
 * closing the half-open database, which would give one back.
 */
export function openFailure(error: unknown): unknown {
  return sqliteOutOfDescriptors(error) ? errors.outOfDescriptors(error) : error;
}
