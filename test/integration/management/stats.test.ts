import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestApp, injectAs, json, type TestContext } from '../../helpers/app.js';
import { createAccount, createIndex, type TestAccount } from '../../helpers/factories.js';

const now = Date.parse('2026-11-22T14:05:30Z');
let ctx: TestContext;
let account: TestAccount;
let index: { id: string };

beforeAll(async () => {
  ctx = await createTestApp({ clock: () => now });
  account = await createAccount(ctx.app);
  index = await createIndex(ctx.app, account);
});
afterAll(async () => ctx.close());

const seconds = (x: string) => Date.parse(x.replace(' +0000 UTC', 'Z').replace(' ', 'T')) / 1000;

describe('GET /v2/search/{id}/stats', () => {
  test.each([
    ['1h', 60, 60],
    ['3h', 60, 180],
    ['12h', 60, 720],
    ['1d', 60, 1440],
    ['3d', 60, 4320],
    ['7d', 60, 10080],
    ['30d', 240, 10800],
  ])('period %s → %i points %i s apart, ending at the current bucket', async (period, points, step) => {
    const response = await injectAs(ctx.app, 'GET', `/v2/search/${index.id}/stats?period=${period}`, account.auth);
    expect(response.statusCode).toBe(200);
    const stats = json(response);
    for (const series of ['query_throughput', 'update_throughput', 'bandwidth_throughput']) {
      expect(stats[series]).toHaveLength(points);
      const times = stats[series].map((p: { x: string }) => seconds(p.x));
      expect(times[1] - times[0]).toBe(step);
      expect(times.at(-1)).toBeLessThanOrEqual(now / 1000);
      expect(times.at(-1) + step).toBeGreaterThan(now / 1000);
    }
  });

  test('defaults to 1h and reports counters from metered usage', async () => {
    const minute = Math.floor(now / 1000 / 60) * 60;
    ctx.app.services.usage.record(index.id, { queries: 3, updates: 2, bandwidth: 1000, reranks: 1 });
    const stats = json(await injectAs(ctx.app, 'GET', `/v2/search/${index.id}/stats`, account.auth));
    expect(stats.query_throughput).toHaveLength(60);
    expect(stats.query_throughput.at(-1)).toEqual({ x: '2026-11-22 14:05:00.000 +0000 UTC', y: 3 });
    expect(stats.update_throughput.at(-1).y).toBe(2);
    expect(stats.bandwidth_throughput.at(-1)).toEqual({ x: '2026-11-22 14:05:00.000 +0000 UTC', y: 1000 });
    expect(stats).toMatchObject({
      daily_query_count: 3,
      daily_update_count: 2,
      monthly_query_count: 3,
      monthly_update_count: 2,
      monthly_bandwidth_usage: 1000,
      monthly_rerank_count: 1,
    });
    expect(stats.days).toHaveLength(7);
    expect(stats.days.at(-1)).toBe('Sunday');
    expect(stats.daily_query_requests.at(-1)).toEqual({ x: '2026-11-22 00:00:00.000 +0000 UTC', y: 3 });
    expect(stats.daily_bandwidths.at(-1).y).toBe(1000);

    // Flushed usage reads the same as unflushed usage.
    await ctx.app.services.usage.flush();
    const stored = await ctx.store.db
      .selectFrom('usage_minutes')
      .selectAll()
      .where('index_id', '=', index.id)
      .execute();
    expect(stored).toEqual([{ index_id: index.id, minute, queries: 3, updates: 2, bandwidth: 1000, reranks: 1 }]);
    const after = json(await injectAs(ctx.app, 'GET', `/v2/search/${index.id}/stats`, account.auth));
    expect(after.daily_query_count).toBe(3);

    const record = json(await injectAs(ctx.app, 'GET', `/v2/search/${index.id}`, account.auth));
    expect(record.throughput_vector.at(-1)).toEqual({ x: '2026-11-22 14:05:00.000 +0000 UTC', y: 5 });
  });

  test('an unknown period → 400 listing the allowed periods', async () => {
    const response = await injectAs(ctx.app, 'GET', `/v2/search/${index.id}/stats?period=2w`, account.auth);
    expect(response.statusCode).toBe(400);
    expect(json(response).details).toContainEqual(
      expect.objectContaining({ field: 'period', allowed: ['1h', '3h', '12h', '1d', '3d', '7d', '30d'] }),
    );
  });
});

describe('GET /v2/search/stats', () => {
  test('sums the account’s indexes for the month', async () => {
    const other = await createIndex(ctx.app, account);
    ctx.app.services.usage.record(other.id, { queries: 10, updates: 5, bandwidth: 500 });
    const stranger = await createAccount(ctx.app);
    const foreign = await createIndex(ctx.app, stranger);
    ctx.app.services.usage.record(foreign.id, { queries: 1000 });

    const response = await injectAs(ctx.app, 'GET', '/v2/search/stats', account.auth);
    expect(response.statusCode).toBe(200);
    const stats = json(response);
    expect(Object.keys(stats).sort()).toEqual(['bandwidth', 'record_count', 'request', 'rerank_count', 'storage']);
    expect(stats.request).toBe(3 + 2 + 10 + 5);
    expect(stats.bandwidth).toBe(1500);
    expect(stats.rerank_count).toBe(1);
  });
});
