import pg from 'pg';

/**
 * For every connection to PostgreSQL. A database host that vanishes (a crash, a failover to
 * another address, a cut network) sends no FIN or RST: without TCP keepalive a statement on such a
 * connection waits forever (and a write holds its index's lock on this node meanwhile). Probes from
 * 10 s idle end it once the host answers again with a reset, or after the system's probe count.
 */
export const PG_CONNECTION_OPTIONS = { keepAlive: true, keepAliveInitialDelayMillis: 10_000 } as const;

/** How long opening a connection may take: an unreachable host is a 503, not minutes of SYN retries. */
export const CONNECT_TIMEOUT_MS = 10_000;

/**
 * A pool's connection class that gives up connecting after `timeoutMs`. Not the pool's own
 * connectionTimeoutMillis, which also bounds the wait for a free connection: that would fail
 * requests on a node that is only busy.
 */
export function timedClient(timeoutMs: number): typeof pg.Client {
  return class TimedClient extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: timeoutMs });
    }
  };
}
