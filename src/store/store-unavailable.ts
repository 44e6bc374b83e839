/**
 * Codes that say the database cannot be reached or cannot serve right now, rather than that a
 * statement is wrong: the socket's (refused, reset, unreachable host, DNS), PostgreSQL's
 * connection exceptions (SQLSTATE class 08), its shutdown and start-up refusals (57P01–57P03),
 * too many connections (53300), and SQLite's busy database (below).
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
]);

/**
 * node-postgres reports a lost or refused connection with these messages and no code ("timeout
 * expired": a connection that did not open within its connect timeout).
 */
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|timeout expired$|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Query read timeout)/;

/**
 * Whether `error`, or an error it wraps, says the store is unreachable for now (a restart, a
 * failover, a network cut): answered 503 with Retry-After, not 500, since retrying is right and
 * nothing is wrong with the request or the code.
 */
export function isStoreUnavailable(error: unknown): boolean {
  let current = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    // SQLITE_BUSY and its extended codes (_SNAPSHOT, _RECOVERY, _TIMEOUT), which better-sqlite3 reports.
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || /^08[0-9A-Z]{3}$|^SQLITE_BUSY/.test(code))) {
      return true;
    }
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
