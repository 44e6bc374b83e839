import type { Kysely } from 'kysely';
import type { ReadCache } from '../store/read-cache.js';
import {
  addUsage,
  deleteUsageOf,
  pruneUsageBefore,
  sumUsage,
  sumUsageByBucket,
  type UsageBucket,
  type UsageCounters,
  type UsageDelta,
} from '../store/repositories/usage.repository.js';
import type { DB } from '../store/schema.js';
import type { Clock } from './clock.js';

export type UsageKind = keyof UsageCounters;

/** Told about every recorded usage, synchronously; `minute` is the UTC minute it counts in. */
export type UsageListener = (indexId: string, minute: number, counters: Partial<UsageCounters>) => void;

/**
 * How long per-minute usage is kept: the longest stats period (30 days) and the whole current
 * month (at most 31 days back) both fit, with room to spare.
 */
export const USAGE_RETENTION_SECONDS = 62 * 86_400;
const PRUNE_INTERVAL_MS = 3_600_000;

const emptyCounters = (): UsageCounters => ({ queries: 0, updates: 0, bandwidth: 0, reranks: 0 });

/**
 * Aggregates data-plane usage per index and UTC minute in memory and flushes it to the store
 * on a timer and at close. Reads add what is not flushed yet, so a node sees its own traffic
 * at once and other nodes' traffic after their next flush.
 */
export class UsageMeter {
  private pending = new Map<string, UsageDelta>();
  private inFlight = new Map<string, UsageDelta>();
  private timer?: NodeJS.Timeout;
  private flushChain: Promise<void> = Promise.resolve();
  private prunedAt = Number.NEGATIVE_INFINITY;
  private readonly listeners: UsageListener[] = [];
  private flushes = 0;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly clock: Clock,
    private readonly flushIntervalMs: number,
    private readonly onFlushError: (error: unknown) => void,
    private readonly cache: ReadCache,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.flush().catch(this.onFlushError);
    }, this.flushIntervalMs);
    this.timer.unref();
  }

  /** Calls `listener` after every {@link record}, so derived views can follow usage without re-reading it. */
  onRecord(listener: UsageListener): void {
    this.listeners.push(listener);
  }

  /**
   * Changes when a flush starts and when it ends. A sum of stored and unflushed usage is exact only
   * if no flush started or ended between reading the store and reading the unflushed part (a flush
   * moves counts from one to the other); readers that keep such sums compare this before and after.
   */
  get flushEpoch(): number {
    return this.flushes;
  }

  /** True while a flush is writing (its counts may or may not be visible in the store yet). */
  get flushing(): boolean {
    return this.flushes % 2 === 1;
  }

  /** Counts usage for an index now. */
  record(indexId: string, counters: Partial<UsageCounters>): void {
    const nowSeconds = Math.floor(this.clock() / 1000);
    const minute = nowSeconds - (nowSeconds % 60);
    const key = `${indexId}\u0000${minute}`;
    let delta = this.pending.get(key);
    if (!delta) {
      delta = { index_id: indexId, minute, ...emptyCounters() };
      this.pending.set(key, delta);
    }
    delta.queries += counters.queries ?? 0;
    delta.updates += counters.updates ?? 0;
    delta.bandwidth += counters.bandwidth ?? 0;
    delta.reranks += counters.reranks ?? 0;
    for (const listener of this.listeners) listener(indexId, minute, counters);
  }

  /** Writes everything recorded so far; concurrent calls are serialised. */
  flush(): Promise<void> {
    const run = this.flushChain.then(async () => {
      if (this.pending.size === 0) return;
      this.inFlight = this.pending;
      this.pending = new Map();
      this.flushes++;
      try {
        await addUsage(this.db, [...this.inFlight.values()]);
      } catch (error) {
        // Keep the counts: merge them back so the next flush retries them.
        for (const delta of this.inFlight.values()) this.mergeBack(delta);
        throw error;
      } finally {
        this.inFlight = new Map();
        this.flushes++;
      }
      // Only nodes that write usage can grow the table, so they are the ones that trim it.
      const now = this.clock();
      if (now - this.prunedAt >= PRUNE_INTERVAL_MS) {
        this.prunedAt = now;
        await pruneUsageBefore(this.db, Math.floor(now / 1000) - USAGE_RETENTION_SECONDS);
      }
    });
    // A failure goes to this flush's caller only: chained as is, it would fail every later flush
    // without running it, and the node would stop writing usage for good after one outage.
    this.flushChain = run.catch(() => {});
    return run;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** Totals for the indexes in [from, to) unix seconds, including unflushed usage. */
  async totals(indexIds: string[], from: number, to: number): Promise<UsageCounters> {
    const stored = {
      ...(await this.cache.get(`usage:${indexIds.join(',')}:${from}:${to}`, () =>
        sumUsage(this.db, indexIds, from, to),
      )),
    };
    for (const delta of this.unflushed(indexIds, from, to)) addInto(stored, delta);
    return stored;
  }

  /** Per-bucket sums for the indexes in [from, to), including unflushed usage. */
  async buckets(
    indexIds: string[],
    from: number,
    to: number,
    bucketSeconds: number,
  ): Promise<Map<number, UsageCounters>> {
    const byBucket = await this.storedBuckets(indexIds, from, to, bucketSeconds);
    this.addUnflushed(byBucket, indexIds, from, to, bucketSeconds);
    return byBucket;
  }

  /** Per-bucket sums of the stored (flushed) usage only; the map is the caller's to change. */
  async storedBuckets(
    indexIds: string[],
    from: number,
    to: number,
    bucketSeconds: number,
  ): Promise<Map<number, UsageCounters>> {
    const rows: UsageBucket[] = await this.cache.get(
      `buckets:${indexIds.join(',')}:${from}:${to}:${bucketSeconds}`,
      () => sumUsageByBucket(this.db, indexIds, from, to, bucketSeconds),
    );
    // Copies: the cached rows are shared.
    return new Map<number, UsageCounters>(rows.map((row) => [row.bucket, { ...row }]));
  }

  /** Adds the unflushed usage of the indexes in [from, to) into `byBucket`, synchronously. */
  addUnflushed(
    byBucket: Map<number, UsageCounters>,
    indexIds: string[],
    from: number,
    to: number,
    bucketSeconds: number,
  ): void {
    for (const delta of this.unflushed(indexIds, from, to)) {
      const bucket = delta.minute - (delta.minute % bucketSeconds);
      let counters = byBucket.get(bucket);
      if (!counters) {
        counters = emptyCounters();
        byBucket.set(bucket, counters);
      }
      addInto(counters, delta);
    }
  }

  private *unflushed(indexIds: string[], from: number, to: number): Iterable<UsageDelta> {
    const wanted = new Set(indexIds);
    for (const source of [this.pending, this.inFlight]) {
      for (const delta of source.values()) {
        if (wanted.has(delta.index_id) && delta.minute >= from && delta.minute < to) yield delta;
      }
    }
  }

  private mergeBack(delta: UsageDelta): void {
    const key = `${delta.index_id}\u0000${delta.minute}`;
    const existing = this.pending.get(key);
    if (existing) addInto(existing, delta);
    else this.pending.set(key, { ...delta });
  }

  /** Drops all usage of a deleted index, unflushed and stored. */
  async discard(indexId: string): Promise<void> {
    for (const [key, delta] of this.pending) if (delta.index_id === indexId) this.pending.delete(key);
    // After any flush in progress, so it cannot write the index's rows back.
    await this.flushChain.catch(() => {});
    await deleteUsageOf(this.db, indexId);
  }
}

function addInto(target: UsageCounters, delta: UsageCounters): void {
  target.queries += delta.queries;
  target.updates += delta.updates;
  target.bandwidth += delta.bandwidth;
  target.reranks += delta.reranks;
}
