import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { createTestStore, type TestStore } from '../../test/helpers/store.js';
import { ReadCache } from '../store/read-cache.js';
import { addUsage } from '../store/repositories/usage.repository.js';
import { formatSeriesTime } from './clock.js';
import { STORED_USAGE_RECHECK_MS, type ThroughputPoint, ThroughputSeries } from './throughput-series.js';
import { UsageMeter } from './usage-meter.service.js';

let testStore: TestStore;
let now: number;
let usage: UsageMeter;
let series: ThroughputSeries;
const onPostgres = () => testStore.store.dialect === 'postgres';

beforeEach(async () => {
  testStore = await createTestStore();
  now = Date.parse('2026-11-22T12:00:10Z');
  const { store } = testStore;
  const clock = () => now;
  usage = new UsageMeter(store.db, clock, 1000, () => {}, new ReadCache(() => store.changeToken()));
  series = new ThroughputSeries(usage, clock, () => store.changeToken());
});
afterEach(async () => testStore.cleanup());

/**
 * The computation this class replaces, kept as the reference: sum stored and unflushed usage
 * per minute for the last 60 minutes on every call.
 */
async function reference(indexId: string): Promise<ThroughputPoint[]> {
  const nowSeconds = Math.floor(now / 1000);
  const currentMinute = nowSeconds - (nowSeconds % 60);
  const from = currentMinute - 59 * 60;
  const buckets = await usage.buckets([indexId], from, currentMinute + 60, 60);
  const points: ThroughputPoint[] = [];
  for (let minute = from; minute <= currentMinute; minute += 60) {
    const counters = buckets.get(minute);
    points.push({ x: formatSeriesTime(minute), y: counters ? counters.queries + counters.updates : 0 });
  }
  return points;
}

async function expectSameAsReference(indexId: string, step: string) {
  const expected = await reference(indexId);
  expect(await series.points(indexId), step).toEqual(expected);
  expect(JSON.parse(await series.json(indexId)), step).toEqual(expected);
}

/** A small deterministic generator (mulberry32), so a failing sequence can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

describe('ThroughputSeries', () => {
  test('a new index has 60 zero points ending with the current minute', async () => {
    const points = await series.points('fresh');
    expect(points).toHaveLength(60);
    expect(points.at(-1)).toEqual({ x: '2026-11-22 12:00:00.000 +0000 UTC', y: 0 });
    expect(points[0].x).toBe('2026-11-22 11:01:00.000 +0000 UTC');
    await expectSameAsReference('fresh', 'fresh');
  });

  test('stays equal to the full computation through usage, flushes and minute boundaries', async () => {
    const next = random(7);
    const ids = ['idx-a', 'idx-b'];
    // Watched from the start, so most of the run goes through the incremental path.
    for (const id of ids) await series.json(id);
    for (let step = 0; step < 400; step++) {
      const roll = next();
      const id = ids[Math.floor(next() * ids.length)];
      if (roll < 0.45) {
        usage.record(id, {
          queries: Math.floor(next() * 4),
          updates: Math.floor(next() * 3),
          bandwidth: Math.floor(next() * 500),
        });
      } else if (roll < 0.55) {
        await usage.flush();
      } else if (roll < 0.85) {
        // Mostly small steps; now and then past the whole window.
        now += next() < 0.03 ? 61 * 60_000 : Math.floor(next() * 90_000);
      } else {
        await expectSameAsReference(id, `step ${step}`);
      }
    }
    for (const id of ids) await expectSameAsReference(id, 'end');
  });

  test('reads the store once, then follows usage and the clock without reading it again', async () => {
    const storedReads = vi.spyOn(usage, 'storedBuckets');
    usage.record('idx', { queries: 2 });
    const first = await series.json('idx');
    expect(await series.json('idx')).toBe(first);
    // On PostgreSQL stored usage is re-read once per re-check period, so stay within one there.
    const step = onPostgres() ? 0 : 60_000;
    for (let minute = 0; minute < 70; minute++) {
      usage.record('idx', { updates: minute % 3 });
      now += step;
      await series.json('idx');
    }
    expect(storedReads).toHaveBeenCalledTimes(1);
    await expectSameAsReference('idx', 'after 70 requests');
  });

  test.runIf(Boolean(process.env.TEST_DATABASE_URL))(
    'on PostgreSQL, stored usage is re-read once per re-check period',
    async () => {
      const storedReads = vi.spyOn(usage, 'storedBuckets');
      now = Date.parse('2026-11-22T12:00:10.000Z');
      await series.json('idx');
      now += STORED_USAGE_RECHECK_MS - 1;
      await series.json('idx');
      expect(storedReads).toHaveBeenCalledTimes(1);
      now += 1;
      await series.json('idx');
      expect(storedReads).toHaveBeenCalledTimes(2);
    },
  );

  test('a sum read across a flush is never kept', async () => {
    usage.record('idx', { queries: 5 });
    const read = usage.storedBuckets.bind(usage);
    const storedReads = vi.spyOn(usage, 'storedBuckets').mockImplementationOnce(async (...args) => {
      // The store is read before a flush commits, the unflushed part after it: this one answer
      // may miss the flushed counts, so it must not be kept.
      const stored = await read(...args);
      await usage.flush();
      return stored;
    });
    await series.json('idx');
    await expectSameAsReference('idx', 'after the flush');
    expect((await series.points('idx')).at(-1)?.y).toBe(5);
    expect(storedReads.mock.calls.length).toBeGreaterThanOrEqual(2);
  });

  test('usage another node wrote is seen after a store change (SQLite) or the re-check period', async () => {
    usage.record('idx', { queries: 1 });
    await expectSameAsReference('idx', 'before');
    const minute = Math.floor(now / 60_000) * 60;
    // What another node's flush does: rows added directly in the store.
    await addUsage(testStore.store.db, [
      { index_id: 'idx', minute, queries: 10, updates: 0, bandwidth: 0, reranks: 0 },
      { index_id: 'idx', minute: minute - 600, queries: 0, updates: 4, bandwidth: 0, reranks: 0 },
    ]);
    if (onPostgres()) {
      // PostgreSQL cannot say when another node wrote: the stored part is re-read periodically.
      expect((await series.points('idx')).at(-1)?.y).toBe(1);
      now += STORED_USAGE_RECHECK_MS;
    }
    await expectSameAsReference('idx', 'after');
    expect((await series.points('idx')).at(-1)?.y).toBe(11);
  });

  test('a clock that goes back gets the full computation again', async () => {
    usage.record('idx', { queries: 3 });
    await series.json('idx');
    now -= 5 * 60_000;
    usage.record('idx', { updates: 2 });
    await expectSameAsReference('idx', 'back in time');
  });

  test('forget drops an index’s series', async () => {
    usage.record('idx', { queries: 3 });
    await series.json('idx');
    const storedReads = vi.spyOn(usage, 'storedBuckets');
    series.forget('idx');
    await series.json('idx');
    expect(storedReads).toHaveBeenCalledTimes(1);
  });
});
