import pg from 'pg';

/**
 * For every connection to PostgreSQL. A database host that vanishes (a crash, a failover to
 * another address, a cut network) sends no FIN or RST: without TCP keepalive an idle connection
 * waits forever. Node sets only the first probe's delay; the reply deadline of
 * {@link boundedClient} is what bounds a connection with a statement in flight.
 */
export const PG_CONNECTION_OPTIONS = { keepAlive: true, keepAliveInitialDelayMillis: 5_000 } as const;

/** How long opening a connection may take: an unreachable host is a 503, not minutes of SYN retries. */
export const CONNECT_TIMEOUT_MS = 10_000;

/**
 * The waits PostgreSQL bounds for every session searchplane opens, in ms (0: no bound). A write
 * that cannot take its index's head lock within `lockTimeoutMs` fails (503 with Retry-After)
 * rather than queueing behind a node that may be cut off; `idleTransactionTimeoutMs` ends the
 * session of such a node, releasing the lock.
 */
export interface SessionLimits {
  lockTimeoutMs: number;
  statementTimeoutMs: number;
  idleTransactionTimeoutMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  lockTimeoutMs: 5_000,
  statementTimeoutMs: 10_000,
  idleTransactionTimeoutMs: 5_000,
};

/**
 * How much longer than the statement timeout a statement's answer may take before the connection
 * is taken for dead: PostgreSQL itself ends the statement at the timeout, so silence past this
 * margin means the network or the host is gone.
 */
const REPLY_MARGIN_MS = 3_000;

/**
 * Server-side keepalive, asked for in the startup packet: PostgreSQL drops the idle session of a
 * node that went silent after about 5 + 2 × 3 s instead of the system's two hours.
 */
const SERVER_KEEPALIVE = '-c tcp_keepalives_idle=5 -c tcp_keepalives_interval=2 -c tcp_keepalives_count=3';

/** The startup parameters that apply `limits` (and server-side keepalive) to a session. */
export function sessionParameters(limits: SessionLimits, urlOptions?: string): pg.ClientConfig {
  return {
    lock_timeout: limits.lockTimeoutMs,
    statement_timeout: limits.statementTimeoutMs,
    idle_in_transaction_session_timeout: limits.idleTransactionTimeoutMs,
    // A URL's own `options` (a search_path, say) would replace ours: keep both.
    options: urlOptions ? `${urlOptions} ${SERVER_KEEPALIVE}` : SERVER_KEEPALIVE,
  } as pg.ClientConfig;
}

/** How long a statement's answer may take before its connection is destroyed (undefined: no bound). */
export function replyDeadlineMs(limits: SessionLimits): number | undefined {
  return limits.statementTimeoutMs > 0 ? limits.statementTimeoutMs + REPLY_MARGIN_MS : undefined;
}

export interface BoundedClientOptions {
  connectTimeoutMs: number;
  /** See {@link replyDeadlineMs}. */
  replyDeadlineMs?: number;
  /** Where each new connection goes (the writable host, on a multi-host URL). */
  target?: ConnectionTarget;
}

/**
 * Chooses the host of each new connection and hears what connections find out about theirs. One
 * host: always it. Several: see `HostList` in pg-hosts.ts.
 */
export interface ConnectionTarget {
  connectionString(): string;
  /** Whether a new connection must check that its host takes writes. */
  readonly checksWritable: boolean;
  /** The host of `connectionString` could not be reached, or is read-only: try the next. */
  failed(connectionString: string): void;
}

/** SQLSTATE of a write refused by a read-only host (a standby, or a primary demoted meanwhile). */
export const READ_ONLY_TRANSACTION = '25006';

/** A new connection reached a host that does not take writes (a standby). */
export class ReadOnlyHostError extends Error {
  readonly code = READ_ONLY_TRANSACTION;
  constructor() {
    super('the database host is read-only (a standby); trying the next host');
    this.name = 'ReadOnlyHostError';
  }
}

type Callback = (error: Error | null, result?: unknown) => void;

/**
 * A pool's connection class with three bounds node-postgres lacks:
 * - connecting gives up after `connectTimeoutMs` (not the pool's connectionTimeoutMillis, which
 *   also bounds the wait for a free connection: that would fail requests on a node only busy);
 * - a statement whose answer has not come within `replyDeadlineMs` destroys its connection, so a
 *   silent peer fails the statement (503) instead of holding it for the system's TCP retries;
 * - a write refused as read-only (the host became a standby) destroys the connection and tells
 *   `target`, so the pool's next connection goes to another host.
 */
export function boundedClient(options: BoundedClientOptions): typeof pg.Client {
  const { connectTimeoutMs, replyDeadlineMs: deadline, target } = options;
  return class BoundedClient extends pg.Client {
    private readonly url: string | undefined;

    constructor(config?: pg.ClientConfig) {
      const url = target?.connectionString();
      super({ ...config, ...(url ? { connectionString: url } : {}), connectionTimeoutMillis: connectTimeoutMs });
      this.url = url ?? config?.connectionString;
    }

    // biome-ignore lint/suspicious/noExplicitAny: pg.Client's connect has a promise and a callback form
    override connect(callback?: any): any {
      const connecting = this.connectChecked();
      if (!callback) return connecting;
      connecting.then(() => callback(null, this), callback);
      return undefined;
    }

    private async connectChecked(): Promise<this> {
      try {
        await super.connect();
        if (target?.checksWritable) {
          const { rows } = await super.query<{ transaction_read_only: string }>('SHOW transaction_read_only');
          if (rows[0]?.transaction_read_only === 'on') throw new ReadOnlyHostError();
        }
        return this;
      } catch (error) {
        if (target && this.url) target.failed(this.url);
        // Connected, but to a standby: the pool never hands out a client whose connect failed.
        if (error instanceof ReadOnlyHostError) super.end().catch(() => {});
        throw error;
      }
    }

    // biome-ignore lint/suspicious/noExplicitAny: pg.Client's query has a dozen overloads
    override query(...args: any[]): any {
      const last = args.length - 1;
      if (typeof args[last] === 'function') {
        const done = this.watch();
        const callback = args[last] as Callback;
        args[last] = (error: Error | null, result?: unknown) => {
          done(error);
          callback(error, result);
        };
        return (super.query as (...a: unknown[]) => unknown)(...args);
      }
      const result = (super.query as (...a: unknown[]) => unknown)(...args);
      if (result instanceof Promise) {
        const done = this.watch();
        result.then(
          () => done(null),
          (error: Error) => done(error),
        );
      }
      return result;
    }

    /** Starts the reply deadline of one statement; the returned function ends it with its outcome. */
    private watch(): (error: Error | null) => void {
      const timer =
        deadline === undefined
          ? undefined
          : setTimeout(() => this.drop(new Error('Connection terminated: no answer from the database')), deadline);
      timer?.unref();
      return (error) => {
        clearTimeout(timer);
        if ((error as { code?: string } | null)?.code === READ_ONLY_TRANSACTION) {
          if (target && this.url) target.failed(this.url);
          this.drop(error as Error);
        }
      };
    }

    /** Ends the connection under its statements: they fail, and the pool discards this client. */
    private drop(reason: Error): void {
      const stream = (this as unknown as { connection?: { stream?: { destroy(error?: Error): void } } }).connection
        ?.stream;
      stream?.destroy(reason);
    }
  };
}
