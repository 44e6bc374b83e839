import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import type { Quotas } from '../../src/services/plans.js';
import { createTestApp, json, type TestContext } from '../helpers/app.js';
import {
  callIndex,
  createAccountWithIndex,
  type ManualClock,
  makeDocs,
  manualClock,
  setQuotas,
  type TestIndex,
} from '../helpers/data-plane.js';
import type { TestAccount } from '../helpers/factories.js';

/**
 * One test per quota field of the index record. Quotas are set on the record in the store (as a
 * plan change would), and time is moved with an injected clock instead of sleeping.
 */
const NOON_JAN_15 = Date.UTC(2030, 0, 15, 12, 0, 0);
const SECONDS_TO_MIDNIGHT = 12 * 3600;
const SECONDS_TO_FEB = (Date.UTC(2030, 1, 1) - NOON_JAN_15) / 1000;

let ctx: TestContext;
let clock: ManualClock;

beforeAll(async () => {
  clock = manualClock(NOON_JAN_15);
  ctx = await createTestApp({ clock: clock.now });
});
afterAll(async () => ctx.close());
beforeEach(() => clock.set(NOON_JAN_15));

async function indexWith(quotas: Partial<Quotas>): Promise<{ index: TestIndex; account: TestAccount }> {
  const created = await createAccountWithIndex(ctx.app);
  await setQuotas(ctx.store, created.index.id, quotas);
  return created;
}

const call = (index: TestIndex, route: string, body?: unknown) =>
  callIndex(ctx.app, index.endpoint, route, index.token, body);

async function stats(account: TestAccount, index: TestIndex) {
  const response = await ctx.app.inject({
    method: 'GET',
    url: `/v2/search/${index.id}/stats`,
    headers: { authorization: account.auth },
  });
  expect(response.statusCode).toBe(200);
  return json(response);
}

function expect429(response: Awaited<ReturnType<typeof call>>, field: string, retryAfter: number) {
  expect(response.statusCode).toBe(429);
  expect(json(response)).toEqual({
    error: expect.stringContaining(field),
    status: 429,
    code: field.startsWith('max_daily') || field.startsWith('max_monthly') ? 'quota_exceeded' : 'rate_limited',
  });
  expect(response.headers['retry-after']).toBe(String(retryAfter));
}

test('max_writes_per_request: upserts and deletes by ids above it are 400 naming the limit', async () => {
  const { index } = await indexWith({ max_writes_per_request: 2 });
  for (const [route, body] of [
    ['upsert-data/w', makeDocs(3)],
    ['delete/w', { ids: ['a', 'b', 'c'] }],
    ['delete/w', ['a', 'b', 'c']],
  ] as const) {
    const response = await call(index, route, body);
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({
      error: expect.stringContaining('max_writes_per_request'),
      status: 400,
      code: 'request_limit_exceeded',
    });
  }
  expect(json(await call(index, 'info')).result.vectorCount).toBe(0);
  expect((await call(index, 'upsert-data/w', makeDocs(2))).statusCode).toBe(200);
  expect(json(await call(index, 'delete/w', ['doc-0', 'doc-1'])).result).toEqual({ deleted: 2 });
});

test('max_reads_per_request: topK, fetch ids and range limit above it are 400 naming the limit', async () => {
  const { index } = await indexWith({ max_reads_per_request: 2 });
  await call(index, 'upsert-data/r', makeDocs(3));
  for (const [route, body] of [
    ['search/r', { query: 'document', topK: 3 }],
    ['fetch/r', { ids: ['doc-0', 'doc-1', 'doc-2'] }],
    ['range/r', { cursor: '', limit: 3 }],
  ] as const) {
    const response = await call(index, route, body);
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({
      error: expect.stringContaining('max_reads_per_request'),
      status: 400,
      code: 'request_limit_exceeded',
    });
  }
  expect(json(await call(index, 'search/r', { query: 'document', topK: 2 })).result).toHaveLength(2);
  expect(json(await call(index, 'fetch/r', { ids: ['doc-0', 'doc-1'] })).result).toHaveLength(2);
  expect(json(await call(index, 'range/r', { cursor: '', limit: 2 })).result.vectors).toHaveLength(2);
  // A prefix fetch returns at most one request's worth of reads.
  expect(json(await call(index, 'fetch/r', { prefix: 'doc-' })).result).toHaveLength(2);
  // A search that names no topK gets the default (10) cut to the limit, not a refusal.
  expect(json(await call(index, 'search/r', { query: 'document' })).result).toHaveLength(2);
  // No reads at all: every read is refused with the limit's code, including those that name no count.
  await setQuotas(ctx.store, index.id, { max_reads_per_request: 0 });
  for (const [route, body] of [
    ['search/r', { query: 'document' }],
    ['fetch/r', { prefix: 'doc-' }],
  ] as const) {
    expect(json(await call(index, route, body)), route).toMatchObject({ code: 'request_limit_exceeded' });
  }
});

test('max_vector_count: an upsert that would exceed it fails as a whole with 403', async () => {
  const { index } = await indexWith({ max_vector_count: 3 });
  expect((await call(index, 'upsert-data/a', makeDocs(2))).statusCode).toBe(200);
  const over = await call(index, 'upsert-data/b', makeDocs(2, 'other-'));
  expect(over.statusCode).toBe(403);
  expect(json(over)).toEqual({
    error: expect.stringContaining('max_vector_count'),
    status: 403,
    code: 'vector_limit_exceeded',
  });
  const info = json(await call(index, 'info')).result;
  expect(info.vectorCount).toBe(2);
  expect(info.namespaces.b).toBeUndefined();
  // Replacing existing documents does not grow the index; filling up to the limit works.
  expect((await call(index, 'upsert-data/a', makeDocs(2))).statusCode).toBe(200);
  expect((await call(index, 'upsert-data/b', makeDocs(1, 'other-'))).statusCode).toBe(200);
  expect(json(await call(index, 'info')).result.vectorCount).toBe(3);
});

test('max_query_per_second: search, fetch and range past it are 429 with Retry-After, until the next second', async () => {
  const { index } = await indexWith({ max_query_per_second: 3 });
  expect((await call(index, 'search/q', { query: 'x' })).statusCode).toBe(200);
  expect((await call(index, 'fetch/q', ['a'])).statusCode).toBe(200);
  expect((await call(index, 'range/q', { cursor: '', limit: 1 })).statusCode).toBe(200);
  const refused = await call(index, 'search/q', { query: 'x' });
  expect429(refused, 'max_query_per_second', 1);
  expect(refused.headers['x-ratelimit-limit']).toBe('3');
  expect(refused.headers['x-ratelimit-remaining']).toBe('0');
  expect429(await call(index, 'fetch/q', ['a']), 'max_query_per_second', 1);
  // Writes have their own limit.
  expect((await call(index, 'upsert-data/q', makeDocs(1))).statusCode).toBe(200);
  clock.advance(1000);
  expect((await call(index, 'search/q', { query: 'x' })).statusCode).toBe(200);
});

test('max_writes_per_second: upsert, delete and reset past it are 429 with Retry-After, until the next second', async () => {
  const { index } = await indexWith({ max_writes_per_second: 2 });
  clock.advance(400);
  expect((await call(index, 'upsert-data/w', makeDocs(1))).statusCode).toBe(200);
  expect((await call(index, 'delete/w', ['doc-0'])).statusCode).toBe(200);
  expect429(await call(index, 'upsert-data/w', makeDocs(1)), 'max_writes_per_second', 1);
  expect429(await call(index, 'reset/w'), 'max_writes_per_second', 1);
  expect((await call(index, 'search/w', { query: 'x' })).statusCode).toBe(200);
  clock.advance(600);
  expect((await call(index, 'upsert-data/w', makeDocs(1))).statusCode).toBe(200);
});

test('max_daily_queries: past it queries are 429 until midnight UTC, and refused queries are not counted', async () => {
  const { index, account } = await indexWith({ max_daily_queries: 3 });
  for (let i = 0; i < 3; i++) expect((await call(index, 'search/d', { query: 'x' })).statusCode).toBe(200);
  expect429(await call(index, 'search/d', { query: 'x' }), 'max_daily_queries', SECONDS_TO_MIDNIGHT);
  expect429(await call(index, 'fetch/d', ['x']), 'max_daily_queries', SECONDS_TO_MIDNIGHT);
  expect((await call(index, 'upsert-data/d', makeDocs(1))).statusCode).toBe(200);
  expect((await stats(account, index)).daily_query_count).toBe(3);

  clock.advance(SECONDS_TO_MIDNIGHT * 1000 - 1000);
  expect429(await call(index, 'search/d', { query: 'x' }), 'max_daily_queries', 1);
  clock.advance(1000);
  expect((await call(index, 'search/d', { query: 'x' })).statusCode).toBe(200);
});

test('max_daily_updates: past it writes are 429 until midnight UTC', async () => {
  const { index } = await indexWith({ max_daily_updates: 2 });
  expect((await call(index, 'upsert-data/u', makeDocs(2))).statusCode).toBe(200);
  expect((await call(index, 'delete/u', ['doc-0'])).statusCode).toBe(200);
  expect429(await call(index, 'upsert-data/u', makeDocs(1)), 'max_daily_updates', SECONDS_TO_MIDNIGHT);
  expect429(await call(index, 'delete-namespace/u'), 'max_daily_updates', SECONDS_TO_MIDNIGHT);
  expect((await call(index, 'search/u', { query: 'x' })).statusCode).toBe(200);
  clock.advance(SECONDS_TO_MIDNIGHT * 1000);
  expect((await call(index, 'upsert-data/u', makeDocs(1))).statusCode).toBe(200);
});

test('max_monthly_bandwidth: once request + response bytes reach it, every route is 429 until the next month', async () => {
  const { index, account } = await indexWith({ max_monthly_bandwidth: 1000 });
  let used = 0;
  while (used < 1000) {
    const response = await call(index, 'upsert-data/b', makeDocs(2));
    expect(response.statusCode).toBe(200);
    used += Buffer.byteLength(JSON.stringify(makeDocs(2))) + Buffer.byteLength(response.body);
  }
  expect((await stats(account, index)).monthly_bandwidth_usage).toBe(used);
  for (const route of ['search/b', 'info', 'upsert-data/b']) {
    expect429(await call(index, route, { query: 'x' }), 'max_monthly_bandwidth', SECONDS_TO_FEB);
  }
  clock.set(Date.UTC(2030, 1, 1));
  expect((await call(index, 'info')).statusCode).toBe(200);
});

test('max_monthly_reranks: past it, reranking falls back to the default ranking instead of failing', async () => {
  const { index, account } = await indexWith({ max_monthly_reranks: 1 });
  await call(index, 'upsert-data/rr', makeDocs(20));
  const query = { query: 'document topic 3', topK: 5, semanticWeight: 0.5 };
  const reranked = await call(index, 'search/rr', { ...query, reranking: true });
  expect(reranked.statusCode).toBe(200);
  expect((await stats(account, index)).monthly_rerank_count).toBe(1);

  const fallback = await call(index, 'search/rr', { ...query, reranking: true });
  expect(fallback.statusCode).toBe(200);
  const plain = await call(index, 'search/rr', query);
  expect(json(fallback).result).toEqual(json(plain).result);
  expect((await stats(account, index)).monthly_rerank_count).toBe(1);

  clock.set(Date.UTC(2030, 1, 1));
  await call(index, 'search/rr', { ...query, reranking: true });
  expect((await stats(account, index)).monthly_rerank_count).toBe(1);
});

test('-1 means unlimited for every quota', async () => {
  const { index } = await indexWith({
    max_writes_per_request: -1,
    max_reads_per_request: -1,
    max_vector_count: -1,
    max_query_per_second: -1,
    max_writes_per_second: -1,
    max_daily_queries: -1,
    max_daily_updates: -1,
    max_monthly_bandwidth: -1,
    max_monthly_reranks: -1,
  });
  expect((await call(index, 'upsert-data/u', makeDocs(1500))).statusCode).toBe(200);
  for (let i = 0; i < 5; i++)
    expect((await call(index, 'search/u', { query: 'x', reranking: true })).statusCode).toBe(200);
  expect(json(await call(index, 'range/u', { cursor: '', limit: 1200 })).result.vectors).toHaveLength(1200);
  // A prefix fetch returns a page's worth (10,000 at most): here every match.
  expect(json(await call(index, 'fetch/u', { prefix: 'doc-' })).result).toHaveLength(1500);
});

test('quotas follow the index record: a plan change applies at the next request', async () => {
  const { index } = await indexWith({ max_reads_per_request: 5 });
  expect((await call(index, 'search/p', { query: 'x', topK: 10 })).statusCode).toBe(400);
  await setQuotas(ctx.store, index.id, { max_reads_per_request: 10, max_query_per_second: 1 });
  expect((await call(index, 'search/p', { query: 'x', topK: 10 })).statusCode).toBe(200);
  expect((await call(index, 'search/p', { query: 'x', topK: 10 })).statusCode).toBe(429);
});
