import pg from 'pg';
import { backoffDelay } from '../backoff.js';
import type { StoreLogger } from './database.js';
import { CONNECT_TIMEOUT_MS, PG_CONNECTION_OPTIONS } from './pg-connection-options.js';

const RECONNECT = { baseMs: 250, maxMs: 10_000 };

/**
 * How often the listening connection, otherwise idle, sends a statement: with a reply deadline
 * (see boundedClient) that finds a silent host within seconds, where TCP keepalive would take the
 * system's probes (minutes).
 */
const PING_MS = 5_000;

/** How to open the listening connection: a URL, or a config (with a client class) per attempt. */
export type ListenerConnection = string | (() => pg.ClientConfig & { Client?: typeof pg.Client });

/**
 * LISTEN on one channel over a dedicated connection (a pooled one cannot hold a LISTEN), with
 * reconnection: after a lost connection it reconnects with backoff and calls `onReconnect`, since
 * notifications sent meanwhile are lost. Resolves once listening, or once a first attempt failed
 * (PostgreSQL starting or failing over): it goes on trying as after a lost connection, and
 * `onReconnect` tells when it listens. The result stops it.
 */
export async function listenForever(
  connection: ListenerConnection,
  channel: string,
  onMessage: (payload: string) => void,
  onReconnect: () => void,
  logger: StoreLogger = { warn() {} },
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  /** Attempts to reconnect since the connection was last up. */
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  const ping = setInterval(() => client?.query('select 1').catch(() => {}), PING_MS);
  ping.unref();

  const connect = async (): Promise<void> => {
    const { Client = pg.Client, ...config } =
      typeof connection === 'string' ? { connectionString: connection } : connection();
    const next = new Client({
      ...config,
      ...PG_CONNECTION_OPTIONS,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    next.on('notification', (message) => {
      if (message.channel === channel && message.payload !== undefined) onMessage(message.payload);
    });
    next.on('error', (error) => {
      logger.warn({ err: error }, 'the notification connection to PostgreSQL failed; reconnecting');
      lost(next);
    });
    next.on('end', () => lost(next));
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      next.end().catch(() => {});
      throw error;
    }
    if (stopped) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
    failures = 0;
  };

  const lost = (which: pg.Client) => {
    if (stopped || client !== which) return;
    client = undefined;
    which.end().catch(() => {});
    schedule();
  };

  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(
      () => {
        connect().then(
          () => {
            if (!stopped) onReconnect();
          },
          () => {
            failures++;
            if (!stopped) schedule();
          },
        );
      },
      backoffDelay(failures + 1, RECONNECT),
    );
    timer.unref();
  };

  try {
    await connect();
  } catch (error) {
    logger.warn({ err: error }, 'listening for notifications from PostgreSQL failed; retrying');
    schedule();
  }
  return async () => {
    stopped = true;
    clearTimeout(timer);
    clearInterval(ping);
    await client?.end().catch(() => {});
    client = undefined;
  };
}
