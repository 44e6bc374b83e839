import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createTestStore, type TestStore } from '../../helpers/store.js';

let testStore: TestStore;
beforeAll(async () => {
  testStore = await createTestStore();
});
afterAll(async () => testStore.cleanup());

test('until start-up finishes every route answers 503 with Retry-After, in its plane’s format', async () => {
  const config = loadConfig({ dataDir: testStore.dataDir, databaseUrl: testStore.databaseUrl }, {});
  let accepting = false;
  const app = await buildApp({ config, store: testStore.store, logger: false, acceptingRequests: () => accepting });
  try {
    const health = await app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(503);
    expect(health.headers['retry-after']).toBe('1');
    expect(health.json()).toMatchObject({ code: 'service_unavailable' });
    const management = await app.inject({ method: 'GET', url: '/v2/search' });
    expect(management.statusCode).toBe(503);
    const dataPlane = await app.inject({ method: 'POST', url: '/indexes/some-endpoint/search', payload: {} });
    expect(dataPlane.statusCode).toBe(503);
    expect(dataPlane.json()).toEqual({ error: expect.any(String), status: 503, code: 'service_unavailable' });

    accepting = true;
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/v2/search' })).statusCode).toBe(401);
  } finally {
    await app.close();
  }
});
