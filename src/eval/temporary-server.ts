import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import type { Config } from '../config.js';
import { createEmbeddedEngine, type EngineLogger, type SearchEngine } from '../engine/index.js';
import { engineOptions } from '../engine-setup.js';
import { migrateToLatest, openStore, type Store } from '../store/database.js';
import { DataPlaneClient } from './data-plane-client.js';

/** A throw-away server with one account and one index, in its own temp dir. */
export interface TemporaryServer {
  /** The index's data plane, spoken to over HTTP like an SDK client does. */
  client: DataPlaneClient;
  /** The temp dir holding the store and the index files; gone after {@link TemporaryServer.close}. */
  dir: string;
  /** Name of the embedder the configuration chose (e.g. `builtin-…`), for the report. */
  embedderName: string;
  /** Stops the server, closes the store and engine, removes the temp dir; safe to call more than once. */
  close(): Promise<void>;
}

/** Exit code after an interrupt: 128 + the signal number, as shells report it. */
const SIGNAL_EXIT_CODES: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

const ACCOUNT_EMAIL = 'eval@localhost';

/**
 * Starts the whole app over a fresh temp dir, listening on 127.0.0.1 on a free port, with the
 * embedder, reranker and enricher of `config` (so an evaluation measures what the server would
 * serve, HTTP and request handling included), and creates an account and one index through the
 * management API. Until closed, SIGINT/SIGTERM close everything, remove the temp dir and exit (130
 * or 143; a second signal exits at once): an interrupted evaluation must not leave an index of a
 * whole collection behind in /tmp.
 */
export async function startTemporaryServer(config: Config, logger: EngineLogger): Promise<TemporaryServer> {
  const dir = mkdtempSync(join(tmpdir(), 'searchplane-eval-'));
  const options = engineOptions(config, dir, logger);
  let engine: SearchEngine | undefined;
  let store: Store | undefined;
  let app: FastifyInstance | undefined;
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    const code = SIGNAL_EXIT_CODES[signal] ?? 1;
    if (interrupted) {
      // A second signal: do not wait for the engine any longer. Deleting open files is fine.
      rmSync(dir, { recursive: true, force: true });
      process.exit(code);
    }
    interrupted = true;
    process.stderr.write(`searchplane eval: interrupted (${signal}); removing ${dir}\n`);
    // The engine is closed before exiting, not abandoned: exiting while the HNSW worker thread is
    // inside the native addPoint aborts the process (napi fatal error).
    void close().finally(() => process.exit(code));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      try {
        if (app) {
          // Without this, close waits out the keep-alive timeout of fetch's idle connections.
          app.server.keepAliveTimeout = 1;
          await app.close();
        }
      } finally {
        try {
          await engine?.close();
          await store?.close();
        } finally {
          rmSync(dir, { recursive: true, force: true });
          // After an interrupt the handlers stay, so that a second signal still cleans up and exits.
          if (!interrupted) {
            process.off('SIGINT', onSignal);
            process.off('SIGTERM', onSignal);
          }
        }
      }
    })();
    return closing;
  };
  try {
    engine = createEmbeddedEngine(options);
    store = openStore({ dataDir: dir });
    await migrateToLatest(store);
    app = await buildApp({
      config: { ...config, dataDir: dir, databaseUrl: undefined, dataDomain: undefined },
      store,
      logger: false,
      engine,
    });
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    const { email, api_key } = await app.services.accounts.create(ACCOUNT_EMAIL);
    const response = await fetch(`${baseUrl}/v2/search`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`${email}:${api_key}`).toString('base64')}`,
      },
      body: JSON.stringify({ name: 'eval', region: 'us-central1', type: 'payg' }),
    });
    if (!response.ok) throw new Error(`creating the index failed: ${response.status} ${await response.text()}`);
    const { endpoint, token } = (await response.json()) as { endpoint: string; token: string };
    const client = new DataPlaneClient(`${baseUrl}/indexes/${endpoint}`, token);
    return { client, dir, embedderName: options.embedder.name, close };
  } catch (error) {
    await close();
    throw error;
  }
}
