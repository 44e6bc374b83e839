import { sql } from 'kysely';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { createTestStore, type TestStore } from '../../test/helpers/store.js';
import { ReadCache } from '../store/read-cache.js';
import { USAGE_RETENTION_SECONDS, UsageMeter } from './usage-meter.service.js';

let testStore: TestStore;
let now: number;
let meter: UsageMeter;

beforeEach(async () => {
  testStore = await createTestStore();
  now = Date.parse('2026-11-22T12:00:00Z');
  const { store } = testStore;
  meter = new UsageMeter(
    store.db,
    () => now,
    1000,
    () => {},
    new ReadCache(() => store.changeToken()),
  );
});
afterEach(async () => testStore.cleanup());

const storedRows = () => testStore.store.db.selectFrom('usage_minutes').selectAll().orderBy('minute').execute();

test('discard removes an index’s unflushed and stored usage, and only its own', async () => {
  meter.record('gone', { queries: 2 });
  meter.record('kept', { updates: 1 });
  await meter.flush();
  meter.record('gone', { queries: 5 });

  await meter.discard('gone');
  await meter.flush();

  expect((await storedRows()).map((row) => row.index_id)).toEqual(['kept']);
  expect(await meter.totals(['gone'], 0, now / 1000 + 60)).toEqual({
    queries: 0,
    updates: 0,
    bandwidth: 0,
    reranks: 0,
  });
});

test('a flush trims usage older than the retention, keeping the rest', async () => {
  const old = now;
  meter.record('idx', { queries: 1 });
  now += 60_000;
  meter.record('idx', { queries: 2 });
  await meter.flush();
  expect(await storedRows()).toHaveLength(2);

  // Just past the retention of the first minute: the next flush that writes drops it.
  now = old + (USAGE_RETENTION_SECONDS + 30) * 1000;
  meter.record('idx', { queries: 3 });
  await meter.flush();
  expect((await storedRows()).map((row) => row.queries)).toEqual([2, 3]);
});

test('after a failed flush (the store unreachable), the next flush writes everything, the failed counts included', async () => {
  const { db } = testStore.store;
  meter.record('idx', { queries: 1 });
  // The table gone for a moment stands in for a store that cannot be reached.
  await sql`ALTER TABLE usage_minutes RENAME TO usage_minutes_away`.execute(db);
  await expect(meter.flush()).rejects.toThrow();
  await sql`ALTER TABLE usage_minutes_away RENAME TO usage_minutes`.execute(db);
  meter.record('idx', { queries: 2 });
  await meter.flush();
  expect((await storedRows()).map((row) => row.queries)).toEqual([3]);
  meter.record('idx', { queries: 4 });
  await meter.flush();
  expect((await storedRows()).map((row) => row.queries)).toEqual([7]);
});
