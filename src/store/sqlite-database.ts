import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { boundedCache } from '../services/bounded-cache.js';

/** Distinct SQL strings kept prepared; past this the least recently used is dropped. */
const MAX_CACHED_STATEMENTS = 1000;
/**
 * How long a read of `PRAGMA data_version` is trusted. The pragma takes a shared-memory read
 * transaction, too much for every cache lookup; other processes' commits (the CLI rotating a key
 * next to a running server) are therefore seen after at most this long. This connection's own
 * writes are seen at once.
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
  private readonly statements = boundedCache<string, SqliteStatement>({ max: MAX_CACHED_STATEMENTS });
  private readonly dataVersion: SQLite.Statement;
  private writes = 0;
  private foreignVersion: unknown;
  private polledAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: SQLite.Database,
    private readonly clock: () => number = Date.now,
  ) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  prepare(sql: string): SqliteStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      const prepared = this.db.prepare(sql);
      statement = prepared.readonly ? prepared : this.countingWrites(prepared);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Idempotent: the store closes it after Kysely's destroy(), which may have closed it already. */
  close(): void {
    this.db.close();
  }

  /** Changes after every write through this connection and every commit by another one. */
  changeToken(): string {
    const now = this.clock();
    if (now - this.polledAt >= FOREIGN_CHANGE_POLL_MS) {
      this.foreignVersion = this.dataVersion.get();
      this.polledAt = now;
    }
    return `${this.writes}:${this.foreignVersion}`;
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
