import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { metricValue } from '../../helpers/metrics.js';
import { createTestStore, type TestStore } from '../../helpers/store.js';

let testStore: TestStore;
beforeAll(async () => {
  testStore = await createTestStore();
});
afterAll(async () => testStore.cleanup());

test('until start-up finishes every route answers 503 with Retry-After, in its plane’s format', async () => {
  const config = loadConfig({ dataDir: testStore.dataDir, databaseUrl: testStore.databaseUrl }, {});
  let accepting = false;
  const logs: { level: number; msg: string; err?: unknown }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(JSON.parse(String(chunk)));
      callback();
    },
  });
  const app = await buildApp({
    config,
    store: testStore.store,
    logger: { stream },
    acceptingRequests: () => accepting,
  });
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

    // Expected and retried: logged as warnings (pino level 40) with no stack, never as errors.
    const unavailable = logs.filter((line) => line.msg === 'searchplane is starting; try again in a moment');
    expect(unavailable.map((line) => line.level)).toEqual([40, 40, 40]);
    expect(unavailable.some((line) => line.err !== undefined)).toBe(false);
    expect(logs.some((line) => line.level >= 50)).toBe(false);

    accepting = true;
    // The refusals are counted, by the route each request matched.
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    const refused = (method: string, route: string) =>
      metricValue(metrics, 'searchplane_http_requests_total', { method, route, status_code: '503' });
    expect(refused('GET', '/healthz')).toBe(1);
    expect(refused('GET', '/v2/search')).toBe(1);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/v2/search' })).statusCode).toBe(401);
  } finally {
    await app.close();
  }
});
