/**
 * Codes that say the database cannot be reached or cannot serve right now, rather than that a
 * statement is wrong: the socket's (refused, reset, unreachable host, DNS), PostgreSQL's
 * connection exceptions (SQLSTATE class 08), its shutdown and start-up refusals (57P01–57P03),
 * too many connections (53300), a host that became read-only (25006: a standby, during a
 * failover), the session bounds searchplane sets (see {@link STORE_BUSY_CODES}), and SQLite's busy
 * database (below).
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '25006',
]);

/**
 * PostgreSQL's answers when a bound of the session ran out: a lock not granted within
 * lock_timeout (55P03: another node's write holds the index), a statement cancelled at
 * statement_timeout (57014), a session ended idle in a transaction (25P03).
 */
const STORE_BUSY_CODES = new Set(['55P03', '57014', '25P03']);

/**
 * node-postgres reports a lost or refused connection with these messages and no code ("timeout
 * expired": a connection that did not open within its connect timeout).
 */
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|timeout expired$|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Query read timeout)/;

/**
 * Whether `error`, or an error it wraps, says the store is unreachable for now (a restart, a
 * failover, a network cut) or too busy (a session bound ran out): answered 503 with Retry-After,
 * not 500, since retrying is right and nothing is wrong with the request or the code.
 */
export function isStoreUnavailable(error: unknown): boolean {
  return inCauses(error, ({ code, message }) => {
    // SQLITE_BUSY and its extended codes (_SNAPSHOT, _RECOVERY, _TIMEOUT), which better-sqlite3 reports.
    if (
      typeof code === 'string' &&
      (UNAVAILABLE_CODES.has(code) || STORE_BUSY_CODES.has(code) || /^08[0-9A-Z]{3}$|^SQLITE_BUSY/.test(code))
    ) {
      return true;
    }
    return typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message);
  });
}

/** Whether `error` is a bound of the session running out (a lock or statement timeout), not an unreachable store. */
export function isStoreBusy(error: unknown): boolean {
  return inCauses(error, ({ code }) => typeof code === 'string' && STORE_BUSY_CODES.has(code));
}

/** Whether `error` or one of the errors it wraps (a few levels deep) passes `test`. */
function inCauses(error: unknown, test: (candidate: { code?: unknown; message?: unknown }) => boolean): boolean {
  let current = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    if (test(current as { code?: unknown; message?: unknown })) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
