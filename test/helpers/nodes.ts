import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { SearchEngine } from '../../src/engine/contract.js';
import type { Clock } from '../../src/services/clock.js';
import { openStore, storeOptions } from '../../src/store/database.js';
import { createTestStore, type TestStore } from './store.js';

/** One node of a deployment: an app with its own data dir over the shared (PostgreSQL) store. */
export interface TestNode {
  app: FastifyInstance;
  dataDir: string;
  config: Config;
  close(): Promise<void>;
}

export interface TestCluster {
  store: TestStore;
  nodes: TestNode[];
  /** Adds a node with a fresh, empty data dir (optionally with an engine of the test's own). */
  addNode(options?: { engine?: (config: Config) => SearchEngine; env?: Record<string, string> }): Promise<TestNode>;
  close(): Promise<void>;
}

/**
 * `count` nodes on one fresh PostgreSQL schema (TEST_DATABASE_URL), each with its own data dir
 * and connection pool, as separate server processes would be.
 */
export async function createCluster(
  count: number,
  env: Record<string, string> = {},
  clock?: Clock,
): Promise<TestCluster> {
  const store = await createTestStore();
  const nodes: TestNode[] = [];
  const cluster: TestCluster = {
    store,
    nodes,
    async addNode(options = {}) {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'searchplane-node-'));
      const config = loadConfig(
        { dataDir, databaseUrl: store.databaseUrl },
        { LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent', ...env, ...options.env },
      );
      const nodeStore = openStore(storeOptions(config));
      const engine = options.engine?.(config);
      const app = await buildApp({
        config,
        store: nodeStore,
        logger: process.env.DEBUG_LOG ? {} : false,
        engine,
        clock,
      });
      await app.ready();
      const node: TestNode = {
        app,
        dataDir,
        config,
        async close() {
          await app.close();
          await engine?.close();
          await nodeStore.close();
          rmSync(dataDir, { recursive: true, force: true });
        },
      };
      nodes.push(node);
      return node;
    },
    async close() {
      for (const node of nodes.splice(0)) await node.close();
      await store.cleanup();
    },
  };
  for (let i = 0; i < count; i++) await cluster.addNode();
  return cluster;
}
