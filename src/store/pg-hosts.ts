import pg from 'pg';
import type { ConnectionTarget } from './pg-connection-options.js';

/** A `DATABASE_URL` taken apart: one single-host URL per host, in the order given. */
export interface PostgresUrl {
  /** `postgres://user:password@host:port/db?…` for each host, without `options` and `target_session_attrs`. */
  hosts: string[];
  /** The URL's `options` parameter (startup options such as `-c search_path=…`), if any. */
  options?: string;
  /** Whether a connection must land on a host that takes writes (see {@link parsePostgresUrl}). */
  readWrite: boolean;
}

const URL_SHAPE = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/i;
const SESSION_ATTRS = ['any', 'read-write', 'primary'] as const;

/**
 * Parses a PostgreSQL URL as libpq does for several hosts (node-postgres takes one):
 * `postgres://user:password@a:5432,b:5433/db?target_session_attrs=read-write`. Each new connection
 * tries the hosts in order from the last one that worked, and with `target_session_attrs` of
 * `read-write` or `primary` (the default when several hosts are named) only keeps one that takes
 * writes, so a node follows a promoted standby. Throws with a reason when `raw` is not such a URL.
 */
export function parsePostgresUrl(raw: string): PostgresUrl {
  const match = URL_SHAPE.exec(raw);
  if (!match) throw new Error('must be postgres://user:password@host:port/database');
  const [, scheme, userinfo = '', hostList, rest] = match;
  const query = new URL(`${scheme}placeholder${rest}`);
  const attrs = query.searchParams.get('target_session_attrs') ?? undefined;
  if (attrs !== undefined && !(SESSION_ATTRS as readonly string[]).includes(attrs)) {
    throw new Error(`target_session_attrs must be one of ${SESSION_ATTRS.join(', ')} (got "${attrs}")`);
  }
  const options = query.searchParams.get('options') ?? undefined;
  query.searchParams.delete('target_session_attrs');
  query.searchParams.delete('options');
  const tail = `${query.pathname}${query.search}`;
  const hostNames = hostList.split(',');
  if (hostNames.some((host) => host === '')) throw new Error('names an empty host');
  const hosts = hostNames.map((host) => {
    const single = `${scheme}${userinfo}${host}${tail}`;
    new URL(single); // throws on a bad host or port
    return single;
  });
  const readWrite = attrs === undefined ? hosts.length > 1 : attrs !== 'any';
  return { hosts, options, readWrite };
}

/**
 * Where new connections go: the hosts of a {@link PostgresUrl} in turn, from the last that worked.
 * A connection that cannot reach its host, or finds it read-only, moves the list on.
 */
export class HostList implements ConnectionTarget {
  private index = 0;

  constructor(private readonly url: PostgresUrl) {}

  get checksWritable(): boolean {
    return this.url.readWrite;
  }

  connectionString(): string {
    return this.url.hosts[this.index];
  }

  failed(connectionString: string): void {
    // Only the first of several connections failing on the same host moves the list on.
    if (this.url.hosts[this.index] === connectionString) this.index = (this.index + 1) % this.url.hosts.length;
  }
}

/**
 * A pool that, when opening a connection fails on one host (unreachable, or read-only), tries the
 * next ones before giving up, so a request during a failover is served by the new primary rather
 * than failed. A connection checked out while the pool is full or idle ones wait is not retried:
 * no host was tried for it.
 */
export function hostListPool(hosts: HostList, hostCount: number): typeof pg.Pool {
  return class HostListPool extends pg.Pool {
    // biome-ignore lint/suspicious/noExplicitAny: pg.Pool's connect has a promise and a callback form
    override connect(callback?: any): any {
      const connecting = this.connectTrying(hostCount);
      if (!callback) return connecting;
      connecting.then(
        (client) => callback(undefined, client, () => client.release()),
        (error) => callback(error),
      );
      return undefined;
    }

    private async connectTrying(attempts: number): Promise<pg.PoolClient> {
      for (let attempt = 1; ; attempt++) {
        const before = hosts.connectionString();
        try {
          return await super.connect();
        } catch (error) {
          if (attempt >= attempts || hosts.connectionString() === before) throw error;
        }
      }
    }
  };
}
