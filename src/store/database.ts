import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import { migrationProvider } from './migrations/index.js';
import {
  boundedClient,
  CONNECT_TIMEOUT_MS,
  DEFAULT_SESSION_LIMITS,
  PG_CONNECTION_OPTIONS,
  replyDeadlineMs,
  type SessionLimits,
  sessionParameters,
} from './pg-connection-options.js';
import { HostList, hostListPool, parsePostgresUrl } from './pg-hosts.js';
import { listenForever } from './pg-listener.js';
import type { DB } from './schema.js';
import { SqliteConnectionDatabase } from './sqlite-database.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<DB>;
  dialect: Dialect;
  /** Where the embedded database lives (undefined on PostgreSQL). */
  file?: string;
  /**
   * A value that changes whenever stored data may have changed, for read caches; undefined
   * when the store cannot tell cheaply (PostgreSQL, where other nodes write), so nothing is cached.
   */
  changeToken(): string | undefined;
  /** PostgreSQL only: LISTEN on a channel (with reconnection) for notifications from other nodes. */
  listen?(channel: string, onMessage: (payload: string) => void, onReconnect: () => void): Promise<() => Promise<void>>;
  /**
   * PostgreSQL only: runs `sql` as the named prepared statement `name`, parsed and planned once per
   * connection rather than on every call (for the statement every data-plane request runs). When the
   * server cannot keep it (a pooler in transaction mode, or a newer node's migration changed what
   * `sql` returns), it warns once and runs statements unnamed from then on.
   */
  prepared?<R>(name: string, sql: string, parameters: readonly unknown[]): Promise<R[]>;
  /**
   * PostgreSQL only: how often a transaction waiting on this node must send a statement to stay
   * inside the idle-in-transaction timeout (undefined: no timeout).
   */
  transactionHeartbeatMs?: number;
  /**
   * One round trip to the database, for readiness; rejects when it cannot be reached (on
   * PostgreSQL over a connection of its own, so a busy pool does not make it wait, and only to a
   * host that takes writes).
   */
  ping(): Promise<void>;
  /** PostgreSQL only: runs `work` on a connection of its own without statement or lock timeouts. */
  unbounded?<R>(work: (db: Kysely<DB>) => Promise<R>): Promise<R>;
  /** Connection counts of the PostgreSQL pool, for metrics; absent on SQLite (no pool). */
  poolStats?(): PoolStats;
  /**
   * PostgreSQL only: where lost connections are reported from now on (the server's logger); until
   * then, one line on stderr.
   */
  useLogger?(logger: StoreLogger): void;
  close(): Promise<void>;
}

/** Where the store reports trouble it recovers from (a pino-compatible subset). */
export interface StoreLogger {
  warn(obj: object, msg?: string): void;
}

export interface PoolStats {
  /** Open connections, idle or in use. */
  total: number;
  idle: number;
  /** Queries waiting for a free connection. */
  waiting: number;
}

export interface OpenStoreOptions {
  dataDir: string;
  databaseUrl?: string;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
  /** PostgreSQL: how long a transaction may sit idle before the server ends its session. */
  idleTransactionTimeoutMs?: number;
  /** PostgreSQL: how long a statement may wait for a lock (a write for its index's head lock). */
  lockTimeoutMs?: number;
  /** PostgreSQL: how long a statement may run. */
  statementTimeoutMs?: number;
  /** PostgreSQL: how long opening a connection may take (10 s). */
  connectTimeoutMs?: number;
}

/** The store a configuration names, with its PostgreSQL session bounds. */
export function storeOptions(config: Pick<Config, 'dataDir' | 'databaseUrl' | 'postgres'>): OpenStoreOptions {
  return { dataDir: config.dataDir, databaseUrl: config.databaseUrl, ...config.postgres };
}

export const SQLITE_FILE_NAME = 'searchplane.sqlite';

/** The SQLite file a store would open, or undefined on PostgreSQL (whose database always exists). */
export function missingStoreFile(options: OpenStoreOptions): string | undefined {
  if (options.databaseUrl) return undefined;
  const file = path.join(options.dataDir, SQLITE_FILE_NAME);
  return existsSync(file) ? undefined : file;
}

/**
 * Opens the management store: PostgreSQL when a URL is given, otherwise a SQLite file in
 * the data dir (created if missing). Does not migrate; call {@link migrateToLatest}.
 */
export function openStore(options: OpenStoreOptions): Store {
  if (options.databaseUrl) {
    return openPostgres(options.databaseUrl, options.poolSize ?? 10, options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS, {
      lockTimeoutMs: options.lockTimeoutMs ?? DEFAULT_SESSION_LIMITS.lockTimeoutMs,
      statementTimeoutMs: options.statementTimeoutMs ?? DEFAULT_SESSION_LIMITS.statementTimeoutMs,
      idleTransactionTimeoutMs: options.idleTransactionTimeoutMs ?? DEFAULT_SESSION_LIMITS.idleTransactionTimeoutMs,
    });
  }
  mkdirSync(options.dataDir, { recursive: true });
  const file = path.join(options.dataDir, SQLITE_FILE_NAME);
  const sqlite = new SQLite(file);
  // WAL lets the CLI write while a server runs on the same file; NORMAL keeps every
  // committed transaction across a process crash (only an OS crash can lose the last ones).
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const connection = new SqliteConnectionDatabase(sqlite);
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: connection }) });
  const close = async () => {
    await db.destroy();
    // Kysely's destroy() skips a driver that never ran a query: the file would stay open.
    connection.close();
  };
  const ping = async () => {
    await sql`select 1`.execute(db);
  };
  return { db, dialect: 'sqlite', file, changeToken: () => connection.changeToken(), ping, close };
}

/** bigint columns hold counts and unix times that fit a JS number. */
const PG_TYPES = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text'),
} as pg.CustomTypesConfig;

function openPostgres(databaseUrl: string, max: number, connectTimeoutMs: number, limits: SessionLimits): Store {
  const url = parsePostgresUrl(databaseUrl);
  const hosts = new HostList(url);
  const Pool = hostListPool(hosts, url.hosts.length);
  const Client = boundedClient({ connectTimeoutMs, replyDeadlineMs: replyDeadlineMs(limits), target: hosts });
  const clientConfig = (sessionLimits: SessionLimits) => ({
    ...sessionParameters(sessionLimits, url.options),
    ...PG_CONNECTION_OPTIONS,
    Client:
      sessionLimits === limits
        ? Client
        : boundedClient({ connectTimeoutMs, replyDeadlineMs: replyDeadlineMs(sessionLimits), target: hosts }),
  });
  const poolOf = (size: number, sessionLimits: SessionLimits) =>
    new Pool({ max: size, ...clientConfig(sessionLimits), types: PG_TYPES });
  const pool = poolOf(max, limits);
  let logger: StoreLogger = stderrLogger;
  const reporter: StoreLogger = { warn: (obj, msg) => logger.warn(obj, msg) };
  // A connection PostgreSQL ends (a restart or failover, pg_terminate_backend, a timeout, a cut
  // network) emits 'error' on its client, and an idle one's again on the pool: with nobody
  // listening, either ends the process. The pool drops such a connection and opens another when
  // one is next needed; a query that was running on it fails on its own (logged here with the
  // cause, e.g. the idle-transaction timeout, which that failure does not name).
  const reportLost = (client: pg.Client) => {
    let reported = false;
    client.on('error', (error) => {
      if (reported) return;
      reported = true;
      reporter.warn({ err: safeError(error) }, 'a PostgreSQL connection was lost; the pool replaces it');
    });
  };
  pool.on('connect', reportLost);
  pool.on('error', () => {}); // an idle client's error, reported above
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  let preparing = true;
  return {
    db,
    dialect: 'postgres',
    changeToken: () => undefined,
    transactionHeartbeatMs: heartbeatFor(limits.idleTransactionTimeoutMs),
    prepared: async <R>(name: string, sql: string, parameters: readonly unknown[]) => {
      if (preparing) {
        try {
          return (await pool.query({ name, text: sql, values: [...parameters] })).rows as R[];
        } catch (error) {
          if (!PREPARED_STATEMENT_LOST.has((error as { code?: string }).code ?? '')) throw error;
          preparing = false;
          reporter.warn({ err: safeError(error as Error) }, 'prepared statements fail here; running them unprepared');
        }
      }
      return (await pool.query(sql, [...parameters])).rows as R[];
    },
    listen: (channel, onMessage, onReconnect) =>
      listenForever(() => clientConfig(limits), channel, onMessage, onReconnect, reporter),
    ping: async () => {
      const client = new Client(clientConfig(limits));
      client.on('error', () => {}); // the failure of the query or connect says it
      try {
        await client.connect();
        await client.query('select 1');
      } finally {
        client.end().catch(() => {});
      }
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    useLogger: (next) => {
      logger = next;
    },
    // Migrations may rebuild large tables: no statement or lock bound, on a connection of their own.
    unbounded: async (work) => {
      const migrationPool = poolOf(1, { lockTimeoutMs: 0, statementTimeoutMs: 0, idleTransactionTimeoutMs: 0 });
      migrationPool.on('connect', reportLost);
      migrationPool.on('error', () => {});
      const migrationDb = new Kysely<DB>({ dialect: new PostgresDialect({ pool: migrationPool }) });
      try {
        return await work(migrationDb);
      } finally {
        await migrationDb.destroy();
      }
    },
    close: () => db.destroy(),
  };
}

/**
 * How often a transaction that waits on this node shows PostgreSQL it is alive: a third of the
 * idle-in-transaction timeout, so two beats may be late before the server ends the session.
 */
function heartbeatFor(idleTransactionTimeoutMs: number): number | undefined {
  return idleTransactionTimeoutMs > 0 ? Math.max(100, Math.floor(idleTransactionTimeoutMs / 3)) : undefined;
}

/**
 * What PostgreSQL answers when a connection's prepared statement is gone or stale: 26000 and 42P05
 * behind a pooler that hands each transaction another server connection, 0A000 ("cached plan must
 * not change result type") once a column was added to a table the statement selects with `*`.
 */
const PREPARED_STATEMENT_LOST = new Set(['26000', '42P05', '0A000']);

const stderrLogger: StoreLogger = {
  warn: (obj, msg) => {
    const err = (obj as { err?: { message?: string } }).err;
    process.stderr.write(`searchplane: ${msg ?? 'store warning'}${err?.message ? ` (${err.message})` : ''}\n`);
  },
};

/**
 * What may be logged of a connection's error: pg-pool hangs the whole client on it (`err.client`,
 * with the connection parameters, password included), which a log serializer would print.
 */
export function safeError(error: Error & { code?: string }): { type: string; message: string; code?: string } {
  return { type: error.name, message: error.message, ...(error.code ? { code: error.code } : {}) };
}

/**
 * Where the store keeps its data, for the start-up log: the SQLite file, or the PostgreSQL
 * user, host, port and database (never the password or other URL parameters).
 */
export function describeStore(store: Pick<Store, 'dialect' | 'file'>, databaseUrl?: string): string {
  if (store.dialect === 'sqlite') return `SQLite file ${store.file}`;
  if (!databaseUrl) return 'PostgreSQL';
  const hosts = parsePostgresUrl(databaseUrl).hosts.map((host) => new URL(host));
  const url = hosts[0];
  const user = url.username ? `${decodeURIComponent(url.username)}@` : '';
  const where = hosts.map((host) => `${host.hostname}:${host.port || '5432'}`).join(',');
  return `PostgreSQL ${user}${where}${decodeURIComponent(url.pathname)}`;
}

/** Runs pending migrations; a second run is a no-op. Throws with the failing migration's name. */
export async function migrateToLatest(store: Store): Promise<string[]> {
  return store.unbounded ? store.unbounded((db) => migrate(db, store.dialect)) : migrate(store.db, store.dialect);
}

async function migrate(db: Kysely<DB>, dialect: Dialect): Promise<string[]> {
  // Kysely looks for its bookkeeping tables in every schema; pin them to the schema this
  // connection writes to, so several deployments (or test runs) can share one database.
  const schema =
    dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${(error as Error).message ?? error}`, {
      cause: error,
    });
  }
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

/** True when the error is a unique-constraint violation, in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const candidate = error as { code?: string } | undefined;
  return (
    candidate?.code === '23505' ||
    candidate?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    candidate?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}
