import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { type BuildAppOptions, buildApp } from './app.js';
import type { Config } from './config.js';
import { AppError } from './errors.js';
import { mallocTuningHint, runsOnGlibc } from './malloc-tuning.js';
import type { AccountCredentials, AccountService } from './services/account.service.js';
import { describeStore, migrateToLatest, openStore, storeOptions } from './store/database.js';

/** The account created on a first start without `SEARCHPLANE_ADMIN_*`. */
export const DEFAULT_ADMIN_EMAIL = 'admin@localhost';

export interface StartServerOptions {
  /** `false` for no log; otherwise pino at `config.logLevel`, secrets redacted, to stdout or `stream`. */
  logger?: BuildAppOptions['logger'];
  /**
   * Where the human-readable lines go (the listening URL, first-start credentials). Defaults to
   * stdout. Kept apart from the JSON log so credentials never end up in log storage.
   */
  print?: (text: string) => void;
}

export interface RunningServer {
  app: FastifyInstance;
  /** The URL the server listens on, with the real port when `config.port` was 0. */
  url: string;
  /**
   * Stops accepting connections, lets in-flight requests finish, runs the app's onClose hooks
   * (usage flush), then closes the store. Safe to call more than once.
   */
  close(): Promise<void>;
}

/**
 * Starts the service: opens the store, migrates it, builds the app, listens on
 * `config.host:config.port`, then bootstraps the admin account. Listening comes before the
 * bootstrap so that a busy port stops the start before any credential is created or printed
 * (a first-start key must not be burned); requests that arrive in between get 503. Prints
 * `searchplane listening on <url>` once ready. Everything opened so far is closed again when a
 * step fails.
 */
export async function startServer(config: Config, options: StartServerOptions = {}): Promise<RunningServer> {
  const print = options.print ?? ((text: string) => process.stdout.write(text));
  const store = openStore(storeOptions(config));
  let app: FastifyInstance | undefined;
  let firstAccount: AccountCredentials | undefined;
  let bootstrapped = false;
  try {
    await migrateToLatest(store);
    app = await buildApp({ config, store, logger: options.logger, acceptingRequests: () => bootstrapped });
    app.log.info(
      { dataDir: config.dataDir, store: describeStore(store, config.databaseUrl) },
      'data directory and store',
    );
    const hint = mallocTuningHint(process.env, runsOnGlibc());
    if (hint) app.log.info(hint);
    await listen(app, config);
    firstAccount = await bootstrapAccounts(app.services.accounts, config, app.log);
    bootstrapped = true;
  } catch (error) {
    // Nothing fails after the bootstrap, so no created key is lost here.
    if (app) await app.close().catch(() => {});
    await store.close().catch(() => {});
    throw error;
  }

  const url = listeningUrl(app.server.address() as AddressInfo);
  print(`searchplane listening on ${url}\n`);
  if (firstAccount) print(credentialsBanner(firstAccount, config.publicUrl ?? url));

  const running = app;
  let closing: Promise<void> | undefined;
  return {
    app: running,
    url,
    close() {
      closing ??= (async () => {
        try {
          // server.close() waits for every connection to end, and Node keeps a keep-alive
          // connection open for keepAliveTimeout (72 s in Fastify) after its last response. A tiny
          // timeout ends each one as soon as its in-flight response is sent, so shutdown is prompt.
          running.server.keepAliveTimeout = 1;
          await running.close();
        } finally {
          await store.close();
        }
      })();
      return closing;
    },
  };
}

/**
 * Makes sure someone can log in after start:
 * - with `SEARCHPLANE_ADMIN_EMAIL`/`_API_KEY` set, that account exists with that key (idempotent;
 *   a changed key replaces the stored one);
 * - otherwise, when there is no account at all, creates {@link DEFAULT_ADMIN_EMAIL} with a random
 *   key and returns its credentials, which exist nowhere else, for the caller to show once.
 */
export async function bootstrapAccounts(
  accounts: AccountService,
  config: Pick<Config, 'adminEmail' | 'adminApiKey'>,
  log: FastifyBaseLogger,
): Promise<AccountCredentials | undefined> {
  if (config.adminEmail && config.adminApiKey) {
    const outcome = await accounts.ensure(config.adminEmail, config.adminApiKey);
    log.info({ email: config.adminEmail, outcome }, 'admin account from SEARCHPLANE_ADMIN_EMAIL');
    return undefined;
  }
  if ((await accounts.count()) > 0) return undefined;
  try {
    const credentials = await accounts.create(DEFAULT_ADMIN_EMAIL);
    log.info({ email: DEFAULT_ADMIN_EMAIL }, 'created the first account; its credentials were printed to stdout');
    return credentials;
  } catch (error) {
    // Another node sharing the database bootstrapped at the same moment and printed the key.
    if (error instanceof AppError && error.code === 'account_exists') return undefined;
    throw error;
  }
}

function credentialsBanner({ email, api_key }: AccountCredentials, baseUrl: string): string {
  return [
    '',
    'No account existed, so searchplane created one. This key is shown only this once:',
    `  email:   ${email}`,
    `  api key: ${api_key}`,
    'Try it:',
    `  curl -u '${email}:${api_key}' ${baseUrl.replace(/\/+$/, '')}/v2/search`,
    'Set SEARCHPLANE_ADMIN_EMAIL and SEARCHPLANE_ADMIN_API_KEY to choose the credentials instead.',
    '',
    '',
  ].join('\n');
}

/** Friendlier words for the errors a listen commonly fails with. */
const LISTEN_ERRORS: Record<string, string> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'address not available on this machine',
};

/** Listens, turning a failure into one line: `cannot listen on 127.0.0.1:8080: address already in use`. */
async function listen(app: FastifyInstance, config: Pick<Config, 'host' | 'port'>): Promise<void> {
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const reason = (code && LISTEN_ERRORS[code]) ?? message;
    throw new Error(`cannot listen on ${host}:${config.port}: ${reason}`, { cause: error });
  }
}

function listeningUrl(address: AddressInfo): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
