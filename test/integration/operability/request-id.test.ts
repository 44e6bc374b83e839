import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { callIndex, createAccountWithIndex, type TestIndex } from '../../helpers/data-plane.js';
import type { TestAccount } from '../../helpers/factories.js';
import { createTestStore, type TestStore } from '../../helpers/store.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let testStore: TestStore;
let app: FastifyInstance;
let account: TestAccount;
let index: TestIndex;
const logLines: string[] = [];

beforeAll(async () => {
  testStore = await createTestStore();
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      logLines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  const config = loadConfig({ dataDir: testStore.dataDir, databaseUrl: testStore.databaseUrl }, { LOG_LEVEL: 'info' });
  app = await buildApp({ config, store: testStore.store, logger: { stream } });
  ({ account, index } = await createAccountWithIndex(app));
});
afterAll(async () => {
  await app.close();
  await testStore.cleanup();
});

const requests = {
  'a health check (200)': (headers: Record<string, string>) => app.inject({ method: 'GET', url: '/healthz', headers }),
  'a management 401': (headers: Record<string, string>) => app.inject({ method: 'GET', url: '/v2/search', headers }),
  'a management 200': (headers: Record<string, string>) =>
    app.inject({ method: 'GET', url: '/v2/search', headers: { ...headers, authorization: account.auth } }),
  'an unknown route (404)': (headers: Record<string, string>) => app.inject({ method: 'GET', url: '/nope', headers }),
  'a data-plane 401': (headers: Record<string, string>) =>
    app.inject({ method: 'POST', url: `/indexes/${index.endpoint}/search`, headers, payload: { query: 'x' } }),
  'a data-plane validation error (400)': (headers: Record<string, string>) =>
    app.inject({
      method: 'POST',
      url: `/indexes/${index.endpoint}/search`,
      headers: { ...headers, authorization: `Bearer ${index.token}` },
      payload: { topK: 'many' },
    }),
  'a URL the router refuses (400)': (headers: Record<string, string>) =>
    app.inject({ method: 'GET', url: '/v2/search/%E0%A4%A', headers }),
  'a body that is not JSON (400)': (headers: Record<string, string>) =>
    app.inject({
      method: 'POST',
      url: `/indexes/${index.endpoint}/search`,
      headers: { ...headers, authorization: `Bearer ${index.token}`, 'content-type': 'application/json' },
      payload: '{"query":',
    }),
};

test.each(Object.keys(requests) as (keyof typeof requests)[])('%s echoes the client’s x-request-id', async (name) => {
  const id = `client-${name.replace(/\W+/g, '-')}`;
  const response = await requests[name]({ 'x-request-id': id });
  expect(response.headers['x-request-id']).toBe(id);
});

test.each(Object.keys(requests) as (keyof typeof requests)[])('%s without an id gets a new UUID', async (name) => {
  const first = await requests[name]({});
  const second = await requests[name]({});
  expect(first.headers['x-request-id']).toMatch(UUID);
  expect(second.headers['x-request-id']).toMatch(UUID);
  expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
});

test.each([
  ['129 characters', 'a'.repeat(129)],
  ['non-ASCII', 'id-\u00e9t\u00e9'],
  ['a control character', 'id\u0007bell'],
  ['empty', ''],
])('an id that is %s is replaced by a UUID', async (_case, id) => {
  const response = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': id } });
  expect(response.statusCode).toBe(200);
  expect(response.headers['x-request-id']).toMatch(UUID);
});

test('128 printable characters are accepted as they are', async () => {
  const id = `${'x'.repeat(100)} !"#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~`.slice(0, 128);
  const response = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': id } });
  expect(response.headers['x-request-id']).toBe(id);
});

test('every log line of a request carries its id', async () => {
  const id = 'trace-me-5f1c';
  const before = logLines.length;
  const upsert = await callIndex(app, index.endpoint, 'upsert-data', index.token, [{ id: 'a', content: { t: 'x' } }]);
  expect(upsert.statusCode).toBe(200);
  const traced = await app.inject({
    method: 'POST',
    url: `/indexes/${index.endpoint}/search`,
    headers: { 'x-request-id': id, authorization: `Bearer ${index.read_only_token}` },
    payload: { query: 'x', topK: 1 },
  });
  expect(traced.statusCode).toBe(200);

  const entries = logLines.slice(before).map((line) => JSON.parse(line));
  const mine = entries.filter((entry) => entry.reqId === id);
  // Fastify's "incoming request" and "request completed" lines at least.
  expect(mine.map((entry) => entry.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
  expect(mine.find((entry) => entry.msg === 'incoming request').req.url).toBe(`/indexes/${index.endpoint}/search`);
  // No request-scoped line of either request lacks its id.
  const requestScoped = entries.filter((entry) => entry.req || entry.res || entry.responseTime !== undefined);
  expect(requestScoped.length).toBeGreaterThanOrEqual(4);
  for (const entry of requestScoped) expect(entry.reqId, JSON.stringify(entry)).toEqual(expect.any(String));
  expect(requestScoped.filter((entry) => entry.reqId === id)).toHaveLength(mine.length);
  expect(logLines.join('\n')).not.toContain(index.read_only_token);
});
