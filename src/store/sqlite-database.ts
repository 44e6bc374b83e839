import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

const MAX_CACHED_STATEMENTS = 1000;
/**
 * How long a read of `PRAGMA data_version` is trusted. The pragma costs a shared-memory read
 * transaction (tens of µs), too much for every cache lookup; other processes' commits (the CLI
 * rotating a key next to a running server) are therefore seen after at most this many
 * milliseconds plus however long the event loop is busy. This connection's own writes are seen
 * at once.
 */
export const FOREIGN_CHANGE_POLL_MS = 100;

/**
 * The better-sqlite3 connection as Kysely sees it, with two additions:
 * - each distinct SQL string is prepared once (Kysely prepares on every query, which costs
 *   more than running the typical point lookup);
 * - it counts the writes it runs and, with `PRAGMA data_version`, notices commits by other
 *   connections (the CLI next to a running server), so {@link changeToken} changes whenever
 *   anything in the file may have changed (other processes' commits within
 *   {@link FOREIGN_CHANGE_POLL_MS}). Read caches key on that token.
 */
export class SqliteConnectionDatabase implements SqliteDatabase {
  private readonly statements = new Map<string, SqliteStatement>();
  private readonly dataVersion: SQLite.Statement;
  private writes = 0;
  private foreignVersion: unknown;
  /**
   * Set every {@link FOREIGN_CHANGE_POLL_MS} by a timer; the next {@link changeToken} then reads
   * the pragma. A clock read in each call instead cost every cached lookup about 50 ns, three
   * times per management GET (issue #11). Under fake timers it fires only when the test
   * advances them.
   */
  private pollDue = true;
  /** Started by the first {@link changeToken}: a connection never asked for it holds no timer. */
  private pollTimer: NodeJS.Timeout | undefined;
  private token = '';
  private tokenWrites = -1;
  private tokenVersion: unknown;

  constructor(private readonly db: SQLite.Database) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  prepare(sql: string): SqliteStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      const prepared = this.db.prepare(sql);
      statement = prepared.readonly ? prepared : this.countingWrites(prepared);
      if (this.statements.size >= MAX_CACHED_STATEMENTS) this.statements.clear();
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Idempotent: the store closes it after Kysely's destroy(), which may have closed it already. */
  close(): void {
    clearInterval(this.pollTimer);
    this.pollTimer = undefined;
    this.db.close();
  }

  /** Changes after every write through this connection and every commit by another one. */
  changeToken(): string {
    if (this.pollDue) {
      this.foreignVersion = this.dataVersion.get();
      this.pollDue = false;
      // Unreferenced: it never keeps the process alive; close() stops it.
      this.pollTimer ??= setInterval(() => {
        this.pollDue = true;
      }, FOREIGN_CHANGE_POLL_MS).unref();
    }
    // The same string object while nothing changed: read caches compare it on every lookup.
    if (this.tokenWrites !== this.writes || this.tokenVersion !== this.foreignVersion) {
      this.tokenWrites = this.writes;
      this.tokenVersion = this.foreignVersion;
      this.token = `${this.writes}:${this.foreignVersion}`;
    }
    return this.token;
  }

  private countingWrites(statement: SQLite.Statement): SqliteStatement {
    const counted = <T>(run: () => T): T => {
      try {
        return run();
      } finally {
        this.writes++;
      }
    };
    return {
      reader: statement.reader,
      all: (parameters) => counted(() => statement.all(...parameters)),
      run: (parameters) => counted(() => statement.run(...parameters)),
      iterate: (parameters) => counted(() => statement.iterate(...parameters)),
    };
  }
}
