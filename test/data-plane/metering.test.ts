import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
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
 * Data-plane traffic is metered per index and minute (queries, updates, request + response bytes,
 * reranks) and shows up with real numbers in the management API's records and stats.
 */
const START = Date.UTC(2030, 4, 20, 10, 30, 15);

let ctx: TestContext;
let clock: ManualClock;

beforeAll(async () => {
  clock = manualClock(START);
  ctx = await createTestApp({ clock: clock.now });
});
afterAll(async () => ctx.close());

async function get(account: TestAccount, url: string) {
  const response = await ctx.app.inject({ method: 'GET', url, headers: { authorization: account.auth } });
  expect(response.statusCode, url).toBe(200);
  return json(response);
}

/** Sends a call and returns the bytes it should be metered for (request body + response body). */
async function metered(index: TestIndex, route: string, body: unknown = [], token = index.token) {
  const response = await callIndex(ctx.app, index.endpoint, route, token, body);
  return { response, bytes: Buffer.byteLength(JSON.stringify(body)) + Buffer.byteLength(response.body) };
}

test('queries, updates, bandwidth and reranks reach the index record and its stats', async () => {
  const { account, index } = await createAccountWithIndex(ctx.app);
  let bandwidth = 0;
  const run = async (route: string, body?: unknown, status = 200) => {
    const { response, bytes } = await metered(index, route, body);
    expect(response.statusCode, route).toBe(status);
    bandwidth += bytes;
    return response;
  };

  // 3 updates: two upserts and a delete (one unit per request, whatever the batch size).
  await run('upsert-data/m', makeDocs(150));
  await run('upsert-data/m', makeDocs(10, 'extra-'));
  await run('delete/m', ['extra-0', 'extra-1']);
  // 4 queries: search, fetch, range, and a reranked search of 150 documents (2 rerank units).
  await run('search/m', { query: 'document', topK: 5 });
  await run('fetch/m', { ids: ['doc-1', 'doc-2'], includeData: true });
  await run('range/m', { cursor: '', limit: 20 });
  const reranked = await run('search/m', { query: 'topic', topK: 150, reranking: true });
  expect(json(reranked).result).toHaveLength(150);
  // Free for queries/updates, not for bandwidth.
  await run('info');
  await run('list-namespaces');

  const record = await get(account, `/v2/search/${index.id}`);
  expect(record.throughput_vector).toHaveLength(60);
  expect(record.throughput_vector.at(-1)).toEqual({ x: '2030-05-20 10:30:00.000 +0000 UTC', y: 7 });
  expect(record.throughput_vector.slice(0, -1).every((point: { y: number }) => point.y === 0)).toBe(true);

  const stats = await get(account, `/v2/search/${index.id}/stats?period=1h`);
  expect(stats).toMatchObject({
    current_vector_count: 158,
    daily_query_count: 4,
    daily_update_count: 3,
    monthly_query_count: 4,
    monthly_update_count: 3,
    monthly_bandwidth_usage: bandwidth,
    monthly_rerank_count: 2,
  });
  expect(stats.pending_index_count).toBeGreaterThanOrEqual(0);
  expect(stats.storage_usage).toBeGreaterThan(0);
  expect(stats.query_throughput.at(-1).y).toBe(4);
  expect(stats.update_throughput.at(-1).y).toBe(3);
  expect(stats.daily_bandwidths.at(-1).y).toBe(bandwidth);

  const account_stats = await get(account, '/v2/search/stats');
  expect(account_stats).toMatchObject({ record_count: 158, request: 7, bandwidth, rerank_count: 2 });
  expect(account_stats.storage).toBe(stats.storage_usage);

  // The numbers are per minute: the next minute starts a new point.
  clock.advance(60_000);
  await run('search/m', { query: 'document' });
  const later = await get(account, `/v2/search/${index.id}`);
  expect(later.throughput_vector.slice(-2).map((point: { y: number }) => point.y)).toEqual([7, 1]);
});

test('refused requests cost no query or update; authenticated ones still cost their bytes', async () => {
  const { account, index } = await createAccountWithIndex(ctx.app);
  await setQuotas(ctx.store, index.id, { max_reads_per_request: 2, max_query_per_second: 1 });
  let bandwidth = 0;
  for (const [route, body, status, token] of [
    ['search/r', { query: 'x', topK: 5 }, 400, index.token],
    ['search/r', { query: 'x', topK: 1 }, 200, index.token],
    ['search/r', { query: 'x', topK: 1 }, 429, index.token],
    ['upsert-data/r', makeDocs(1), 403, index.read_only_token],
  ] as const) {
    const { response, bytes } = await metered(index, route, body, token);
    expect(response.statusCode).toBe(status);
    bandwidth += bytes;
  }
  // Unauthenticated traffic is not attributed to the index.
  expect((await metered(index, 'search/r', { query: 'x' }, 'wrong')).response.statusCode).toBe(401);

  const stats = await get(account, `/v2/search/${index.id}/stats`);
  expect(stats).toMatchObject({ daily_query_count: 1, daily_update_count: 0, monthly_bandwidth_usage: bandwidth });
});

test('usage is flushed to the store while running and when the app closes', async () => {
  const { index } = await createAccountWithIndex(ctx.app);
  await metered(index, 'upsert-data', makeDocs(3));
  await ctx.app.services.usage.flush();
  const flushed = await ctx.store.db.selectFrom('usage_minutes').selectAll().where('index_id', '=', index.id).execute();
  expect(flushed.map((row) => Number(row.updates))).toEqual([1]);

  // A second node on the same store: what it meters is written when it shuts down.
  const other = await buildApp({ config: ctx.config, store: ctx.store, clock: clock.now, logger: false });
  await other.ready();
  const { index: second } = await createAccountWithIndex(other);
  const response = await callIndex(other, second.endpoint, 'search', second.token, { query: 'x' });
  expect(response.statusCode).toBe(200);
  await other.close();
  const rows = await ctx.store.db.selectFrom('usage_minutes').selectAll().where('index_id', '=', second.id).execute();
  expect(rows).toHaveLength(1);
  expect(Number(rows[0].queries)).toBe(1);
  expect(Number(rows[0].bandwidth)).toBeGreaterThan(0);
});

test('a body sent in chunks, without a Content-Length, is metered for the bytes received', async () => {
  const { account, index } = await createAccountWithIndex(ctx.app);
  const body = JSON.stringify(makeDocs(40));
  const response = await ctx.app.inject({
    method: 'POST',
    url: `/indexes/${index.endpoint}/upsert-data/chunked`,
    headers: { authorization: `Bearer ${index.token}`, 'content-type': 'application/json' },
    payload: Readable.from([body.slice(0, 1000), body.slice(1000)]),
  });
  expect(response.statusCode, response.body).toBe(200);

  // Refused after it arrived (labelled Latin-1 but not ASCII): its bytes count all the same.
  const refused = await ctx.app.inject({
    method: 'POST',
    url: `/indexes/${index.endpoint}/upsert-data/chunked`,
    headers: { authorization: `Bearer ${index.token}`, 'content-type': 'application/json; charset=latin1' },
    payload: Readable.from([body.slice(0, 1000), body.slice(1000), '\u00e9']),
  });
  expect(refused.statusCode, refused.body).toBe(415);

  const stats = await get(account, `/v2/search/${index.id}/stats`);
  expect(stats.monthly_bandwidth_usage).toBe(
    Buffer.byteLength(body) +
      Buffer.byteLength(response.body) +
      Buffer.byteLength(`${body}\u00e9`) +
      Buffer.byteLength(refused.body),
  );
});
