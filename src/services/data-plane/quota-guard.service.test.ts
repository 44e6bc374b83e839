import { describe, expect, test } from 'vitest';
import type { AppError } from '../../errors.js';
import type { UsageCounters } from '../../store/repositories/usage.repository.js';
import { DEFAULT_PLANS, quotasOf } from '../plans.js';
import type { UsageMeter } from '../usage-meter.service.js';
import { QuotaGuard, type QuotaSubject } from './quota-guard.service.js';

/** A UsageMeter stand-in: `stored` is what other nodes flushed; `record` keeps this node's usage. */
function fakeMeter(stored: Partial<UsageCounters> = {}) {
  const recorded: Partial<UsageCounters>[] = [];
  let reads = 0;
  const meter = {
    record: (_id: string, counters: Partial<UsageCounters>) => recorded.push(counters),
    totals: async () => {
      reads++;
      const sum = { queries: 0, updates: 0, bandwidth: 0, reranks: 0, ...stored };
      for (const counters of recorded) {
        for (const key of Object.keys(sum) as (keyof UsageCounters)[]) sum[key] += counters[key] ?? 0;
      }
      return sum;
    },
  };
  return { meter: meter as unknown as UsageMeter, recorded, stored, reads: () => reads };
}

const subject = (overrides: Partial<QuotaSubject['quotas']> = {}): QuotaSubject => ({
  indexId: 'idx',
  quotas: { ...quotasOf(DEFAULT_PLANS.payg), ...overrides },
});

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    return error as AppError;
  }
  throw new Error('expected a refusal');
}

describe('QuotaGuard', () => {
  test('per-request limits throw request_limit_exceeded naming the field; -1 is unlimited', () => {
    const guard = new QuotaGuard(fakeMeter().meter, () => 0);
    expect(() =>
      guard.checkRequestLimit(subject({ max_reads_per_request: 2 }), 'max_reads_per_request', 2, 'topK'),
    ).not.toThrow();
    expect(() =>
      guard.checkRequestLimit(subject({ max_reads_per_request: 2 }), 'max_reads_per_request', 3, 'topK'),
    ).toThrow(
      expect.objectContaining({
        code: 'request_limit_exceeded',
        message: expect.stringContaining('max_reads_per_request'),
      }),
    );
    expect(() =>
      guard.checkRequestLimit(subject({ max_writes_per_request: -1 }), 'max_writes_per_request', 1e6, 'docs'),
    ).not.toThrow();
  });

  test('usage flushed by other nodes counts towards the daily quota', async () => {
    const fake = fakeMeter({ queries: 5 });
    const guard = new QuotaGuard(fake.meter, () => Date.UTC(2030, 0, 1, 6));
    const error = await refusal(guard.admit(subject({ max_daily_queries: 5 }), 'query'));
    expect(error.code).toBe('quota_exceeded');
    expect(error.headers?.['retry-after']).toBe(String(18 * 3600));
    await expect(guard.admit(subject({ max_daily_queries: 5 }), 'update')).resolves.toBeUndefined();
  });

  test('local usage counts at once; the store is re-read in the background after refreshMs', async () => {
    let now = Date.UTC(2030, 0, 1);
    const fake = fakeMeter();
    const guard = new QuotaGuard(fake.meter, () => now, { refreshMs: 1000 });
    const quotas = subject({ max_daily_updates: 2 });
    await guard.admit(quotas, 'update');
    guard.record('idx', { updates: 1 });
    await guard.admit(quotas, 'update');
    guard.record('idx', { updates: 1 });
    expect((await refusal(guard.admit(quotas, 'update'))).code).toBe('quota_exceeded');
    expect(fake.reads()).toBe(2); // day + month, once

    fake.stored.updates = -2; // another view of the store: never lowers what this node counted
    now += 1000;
    await guard.admit(quotas, 'query');
    await Promise.resolve();
    expect(fake.reads()).toBe(4);
    expect((await refusal(guard.admit(quotas, 'update'))).code).toBe('quota_exceeded');
  });

  test('bandwidth applies to every kind of request; reranks only switch reranking off', async () => {
    const fake = fakeMeter({ bandwidth: 100, reranks: 3 });
    const guard = new QuotaGuard(fake.meter, () => Date.UTC(2030, 1, 10));
    const quotas = subject({ max_monthly_bandwidth: 100, max_monthly_reranks: 3 });
    for (const kind of ['query', 'update', 'none'] as const) {
      const error = await refusal(guard.admit(quotas, kind));
      expect(error.code).toBe('quota_exceeded');
      expect(error.message).toContain('max_monthly_bandwidth');
      expect(error.headers?.['retry-after']).toBe(String(19 * 86_400));
    }
    expect(await guard.rerankAllowed(quotas)).toBe(false);
    expect(await guard.rerankAllowed(subject({ max_monthly_reranks: 4 }))).toBe(true);
    expect(await guard.rerankAllowed(subject({ max_monthly_reranks: -1 }))).toBe(true);
  });

  test('per-second limits are separate for queries and writes and carry rate-limit headers', async () => {
    const guard = new QuotaGuard(fakeMeter().meter, () => 5_000);
    const quotas = subject({ max_query_per_second: 1, max_writes_per_second: 1 });
    await guard.admit(quotas, 'query');
    await guard.admit(quotas, 'update');
    const error = await refusal(guard.admit(quotas, 'query'));
    expect(error.code).toBe('rate_limited');
    expect(error.headers).toEqual({
      'retry-after': '1',
      'x-ratelimit-limit': '1',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1',
    });
    await expect(guard.admit(quotas, 'none')).resolves.toBeUndefined();
  });

  test('record passes usage on to the meter', () => {
    const fake = fakeMeter();
    const guard = new QuotaGuard(fake.meter, () => 0);
    guard.record('idx', { queries: 1, reranks: 2 });
    expect(fake.recorded).toEqual([{ queries: 1, reranks: 2 }]);
  });
});
