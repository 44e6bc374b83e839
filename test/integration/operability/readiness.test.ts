import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { openStore, type Store } from '../../../src/store/database.js';
import { createTestStore, type TestStore } from '../../helpers/store.js';
import { tcpProxy } from '../../helpers/tcp-proxy.js';

/** `/readyz` tells a load balancer whether this node can serve; `/healthz` only that it lives. */
let testStore: TestStore;
const apps: FastifyInstance[] = [];
beforeAll(async () => {
  testStore = await createTestStore();
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});
afterAll(async () => testStore.cleanup());

async function appOver(store: Store, acceptingRequests?: () => boolean): Promise<FastifyInstance> {
  const config = loadConfig(
    { dataDir: testStore.dataDir, databaseUrl: testStore.databaseUrl },
    { LOG_LEVEL: 'silent' },
  );
  const app = await buildApp({ config, store, logger: false, acceptingRequests });
  apps.push(app);
  return app;
}

const get = (app: FastifyInstance, url: string) => app.inject({ method: 'GET', url });

test('a started node whose store answers is ready, without credentials', async () => {
  const app = await appOver(testStore.store);
  const ready = await get(app, '/readyz');
  expect(ready.statusCode).toBe(200);
  expect(ready.json()).toEqual({ status: 'ready' });
});

test('a node still starting is not ready', async () => {
  let accepting = false;
  const app = await appOver(testStore.store, () => accepting);
  const starting = await get(app, '/readyz');
  expect(starting.statusCode).toBe(503);
  expect(starting.headers['retry-after']).toBe('1');
  expect(starting.json()).toMatchObject({ code: 'service_unavailable' });
  accepting = true;
  expect((await get(app, '/readyz')).statusCode).toBe(200);
});

test('a node whose store cannot be reached is not ready, and stays alive', async () => {
  const unreachable: Store = { ...testStore.store, ping: () => Promise.reject(new Error('connect ECONNREFUSED')) };
  const app = await appOver(unreachable);
  const ready = await get(app, '/readyz');
  expect(ready.statusCode).toBe(503);
  expect(ready.headers['retry-after']).toBe('1');
  expect(ready.json()).toEqual({ error: expect.any(String), code: 'service_unavailable' });
  expect((await get(app, '/healthz')).statusCode).toBe(200);
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('readiness against PostgreSQL (PostgreSQL)', () => {
  test('follows the database: not ready while it refuses or goes silent, ready again once it answers', async () => {
    const proxy = await tcpProxy(testStore.databaseUrl!);
    const store = openStore({ dataDir: testStore.dataDir, databaseUrl: proxy.url, connectTimeoutMs: 500 });
    store.useLogger?.({ warn() {} });
    try {
      const app = await appOver(store);
      expect((await get(app, '/readyz')).statusCode).toBe(200);
      proxy.setMode('refuse');
      expect((await get(app, '/readyz')).statusCode).toBe(503);
      proxy.setMode('silent');
      expect((await get(app, '/readyz')).statusCode).toBe(503);
      expect((await get(app, '/healthz')).statusCode).toBe(200);
      proxy.setMode('forward');
      expect((await get(app, '/readyz')).statusCode).toBe(200);
    } finally {
      await store.close();
      await proxy.close();
    }
  });
});
