import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { basic, createTestApp, json, type TestContext } from '../../helpers/app.js';
import { callIndex, createAccountWithIndex, type TestIndex } from '../../helpers/data-plane.js';
import { createAccount, type TestAccount } from '../../helpers/factories.js';
import { metricValue } from '../../helpers/metrics.js';

async function scrape(app: FastifyInstance, authorization?: string): Promise<string> {
  const response = await app.inject({
    method: 'GET',
    url: '/metrics',
    headers: authorization ? { authorization } : {},
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.body;
}

describe('GET /metrics', () => {
  let ctx: TestContext;
  let account: TestAccount;
  let index: TestIndex;

  beforeAll(async () => {
    ctx = await createTestApp();
    ({ account, index } = await createAccountWithIndex(ctx.app));
  });
  afterAll(async () => ctx.close());

  test('answers the Prometheus text format with process metrics, without credentials', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(response.body).toContain('# TYPE searchplane_http_requests_total counter');
    expect(response.body).toContain('# TYPE searchplane_http_request_duration_seconds histogram');
    expect(metricValue(response.body, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(metricValue(response.body, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
  });

  test('counts requests by route pattern and status, never by raw URL', async () => {
    const missingId = randomUUID();
    for (let i = 0; i < 2; i++) {
      const response = await ctx.app.inject({
        method: 'GET',
        url: `/v2/search/${missingId}`,
        headers: { authorization: account.auth },
      });
      expect(response.statusCode).toBe(404);
    }
    const unmatched = await ctx.app.inject({ method: 'GET', url: `/no/such/${missingId}` });
    expect(unmatched.statusCode).toBe(404);

    const text = await scrape(ctx.app);
    const labels = { method: 'GET', route: '/v2/search/:id', status_code: '404' };
    expect(metricValue(text, 'searchplane_http_requests_total', labels)).toBe(2);
    expect(metricValue(text, 'searchplane_http_request_duration_seconds_count', labels)).toBe(2);
    expect(metricValue(text, 'searchplane_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(2);
    // The documented buckets, cumulative: the largest holds every request.
    for (const le of ['0.001', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10']) {
      expect(metricValue(text, 'searchplane_http_request_duration_seconds_bucket', { ...labels, le })).toBeDefined();
    }
    expect(metricValue(text, 'searchplane_http_request_duration_seconds_bucket', { ...labels, le: '10' })).toBe(2);
    expect(
      metricValue(text, 'searchplane_http_requests_total', { method: 'GET', route: '(unmatched)', status_code: '404' }),
    ).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain(missingId);
  });

  test('counts data-plane operations by outcome and times searches, without endpoints or tokens in labels', async () => {
    const before = metricValue(await scrape(ctx.app), 'searchplane_search_duration_seconds_count') ?? 0;
    const upsert = await callIndex(ctx.app, index.endpoint, 'upsert-data/movies', index.token, [
      { id: 'm1', content: { title: 'Star Wars' } },
    ]);
    expect(upsert.statusCode).toBe(200);
    const search = await callIndex(ctx.app, index.endpoint, 'search/movies', index.read_only_token, {
      query: 'star',
      topK: 1,
    });
    expect(search.statusCode).toBe(200);
    expect((await callIndex(ctx.app, index.endpoint, 'search', 'x'.repeat(43), { query: 'a' })).statusCode).toBe(401);
    expect((await callIndex(ctx.app, index.endpoint, 'reset', index.read_only_token)).statusCode).toBe(403);
    expect((await callIndex(ctx.app, index.endpoint, 'search', index.token, { topK: 1 })).statusCode).toBe(400);

    const text = await scrape(ctx.app);
    const operations = (operation: string, outcome: string) =>
      metricValue(text, 'searchplane_data_plane_operations_total', { operation, outcome });
    expect(operations('upsert-data', 'success')).toBe(1);
    expect(operations('search', 'success')).toBe(1);
    expect(operations('search', 'unauthorized')).toBe(1);
    expect(operations('search', 'client_error')).toBe(1);
    expect(operations('reset', 'forbidden')).toBe(1);
    // Only the successful search is timed.
    expect(metricValue(text, 'searchplane_search_duration_seconds_count')).toBe(before + 1);
    expect(
      metricValue(text, 'searchplane_http_requests_total', {
        method: 'POST',
        route: '/indexes/:endpoint/search/:namespace',
        status_code: '200',
      }),
    ).toBe(1);
    for (const secret of [index.endpoint, index.token, index.read_only_token, account.apiKey]) {
      expect(text).not.toContain(secret);
    }
  });

  test('counts stay exact when a route alternates statuses and methods, and every unmatched request counts once', async () => {
    const other = await createTestApp();
    try {
      const { account: owner, index: own } = await createAccountWithIndex(other.app);
      const get = (id: string) =>
        other.app.inject({ method: 'GET', url: `/v2/search/${id}`, headers: { authorization: owner.auth } });
      const missing = randomUUID();
      // 200, 404, 200, 404 on one route: each response in its own series, whatever the last one was.
      expect((await get(own.id)).statusCode).toBe(200);
      expect((await get(missing)).statusCode).toBe(404);
      expect((await get(own.id)).statusCode).toBe(200);
      expect((await get(missing)).statusCode).toBe(404);
      expect((await other.app.inject({ method: 'HEAD', url: '/healthz' })).statusCode).toBe(200);
      expect((await other.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      // Unmatched: in either plane, and refused before any not-found handler (a NUL in the path).
      expect((await other.app.inject({ method: 'GET', url: '/no/such/path' })).statusCode).toBe(404);
      expect((await other.app.inject({ method: 'POST', url: '/indexes/x/no-such-operation' })).statusCode).toBe(404);
      expect((await other.app.inject({ method: 'GET', url: '/no/such%00path' })).statusCode).toBe(400);

      const text = await scrape(other.app);
      const count = (method: string, route: string, status: string) =>
        metricValue(text, 'searchplane_http_requests_total', { method, route, status_code: status });
      expect(count('GET', '/v2/search/:id', '200')).toBe(2);
      expect(count('GET', '/v2/search/:id', '404')).toBe(2);
      expect(count('HEAD', '/healthz', '200')).toBe(1);
      expect(count('GET', '/healthz', '200')).toBe(1);
      expect(count('GET', '(unmatched)', '404')).toBe(1);
      expect(count('POST', '(unmatched)', '404')).toBe(1);
      expect(count('GET', '(unmatched)', '400')).toBe(1);
    } finally {
      await other.close();
    }
  });

  test('the engine latency histograms are exposed', async () => {
    const text = await scrape(ctx.app);
    expect(text).toContain('# TYPE searchplane_embed_duration_seconds histogram');
    expect(text).toContain('# TYPE searchplane_search_duration_seconds histogram');
  });

  test('each app counts only its own requests', async () => {
    const other = await createTestApp();
    try {
      await other.app.inject({ method: 'GET', url: '/healthz' });
      const labels = { method: 'GET', route: '/healthz', status_code: '200' };
      expect(metricValue(await scrape(other.app), 'searchplane_http_requests_total', labels)).toBe(1);
      expect(metricValue(await scrape(ctx.app), 'searchplane_http_requests_total', labels)).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  test('the PostgreSQL pool gauges exist exactly when the store has a pool', async () => {
    const text = await scrape(ctx.app);
    const total = metricValue(text, 'searchplane_pg_pool_connections');
    if (ctx.store.dialect === 'postgres') {
      expect(total).toBeGreaterThanOrEqual(1);
      expect(metricValue(text, 'searchplane_pg_pool_idle_connections')).toBeLessThanOrEqual(total!);
      expect(metricValue(text, 'searchplane_pg_pool_waiting_clients')).toBe(0);
    } else {
      expect(total).toBeUndefined();
      expect(text).not.toContain('searchplane_pg_pool');
    }
  });
});

describe('with SEARCHPLANE_METRICS_TOKEN', () => {
  const token = 'metrics-token-0123456789';
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp({ env: { SEARCHPLANE_METRICS_TOKEN: token } });
  });
  afterAll(async () => ctx.close());

  test.each([
    ['no credentials', undefined],
    ['a wrong token', 'Bearer metrics-token-0123456780'],
    ['a prefix of the token', 'Bearer metrics-token'],
    ['the token without Bearer', token],
  ])('%s is 401 with a Bearer challenge', async (_case, authorization) => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: authorization ? { authorization } : {},
    });
    expect(response.statusCode).toBe(401);
    expect(json(response).code).toBe('unauthorized');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="searchplane-metrics"');
    expect(response.body).not.toContain('searchplane_http_requests_total');
  });

  test('account credentials do not open it', async () => {
    const account = await createAccount(ctx.app);
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: basic(account.email, account.apiKey) },
    });
    expect(response.statusCode).toBe(401);
  });

  test('the token opens it', async () => {
    const text = await scrape(ctx.app, `Bearer ${token}`);
    expect(text).toContain('searchplane_http_requests_total');
    expect(text).not.toContain(token);
  });
});

describe('engine gauges', () => {
  test("report this node's open indexes, documents and pending vectors, read at each scrape", async () => {
    const ctx = await createTestApp();
    try {
      const { index } = await createAccountWithIndex(ctx.app);
      const docs = Array.from({ length: 12 }, (_, i) => ({ id: `d${i}`, content: { text: `document ${i}` } }));
      expect((await callIndex(ctx.app, index.endpoint, 'upsert-data', index.token, docs)).statusCode).toBe(200);
      const text = await scrape(ctx.app);
      expect(metricValue(text, 'searchplane_engine_open_indexes')).toBe(1);
      expect(metricValue(text, 'searchplane_engine_documents')).toBe(12);
      expect(metricValue(text, 'searchplane_engine_pending_vectors')).toBeGreaterThanOrEqual(0);
      // The upsert embedded its documents: the embedder latency histogram saw that call.
      expect(metricValue(text, 'searchplane_embed_duration_seconds_count')).toBeGreaterThanOrEqual(1);
      await callIndex(ctx.app, index.endpoint, 'delete', index.token, { ids: ['d0', 'd1'] });
      expect(metricValue(await scrape(ctx.app), 'searchplane_engine_documents')).toBe(10);
    } finally {
      await ctx.close();
    }
  });
});
