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
  }

  /** Writes everything recorded so far; concurrent calls are serialised. */
  flush(): Promise<void> {
    const run = this.flushChain.then(async () => {
      if (this.pending.size === 0) return;
      this.inFlight = this.pending;
      this.pending = new Map();
      try {
        await addUsage(this.db, [...this.inFlight.values()]);
      } catch (error) {
        // Keep the counts: merge them back so the next flush retries them.
        for (const delta of this.inFlight.values()) this.mergeBack(delta);
        throw error;
      } finally {
        this.inFlight = new Map();
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
      ...(await this.cache.get(`usage-totals:${indexIds.join(',')}:${from}:${to}`, () =>
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
    const rows: UsageBucket[] = await this.cache.get(
      `usage-buckets:${indexIds.join(',')}:${from}:${to}:${bucketSeconds}`,
      () => sumUsageByBucket(this.db, indexIds, from, to, bucketSeconds),
    );
    // Copies: the cached rows are shared.
    const byBucket = new Map<number, UsageCounters>(rows.map((row) => [row.bucket, { ...row }]));
    for (const delta of this.unflushed(indexIds, from, to)) {
      const bucket = delta.minute - (delta.minute % bucketSeconds);
      let counters = byBucket.get(bucket);
      if (!counters) {
        counters = emptyCounters();
        byBucket.set(bucket, counters);
      }
      addInto(counters, delta);
    }
    return byBucket;
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
