import type { UsageCounters } from '../store/repositories/usage.repository.js';
import { type Clock, formatSeriesTime, utcDayStart, utcMonthStart } from './clock.js';
import type {
  IndexDataLifecycle,
  IndexDataSummary,
  SearchIndexService,
  ThroughputPoint,
} from './search-index.service.js';
import type { UsageMeter } from './usage-meter.service.js';

export const STATS_PERIODS = ['1h', '3h', '12h', '1d', '3d', '7d', '30d'] as const;
export type StatsPeriod = (typeof STATS_PERIODS)[number];

const HOUR = 3600;
/** Points and bucket width per period: 60 points, except 240 three-hour points for 30 days. */
const PERIOD_SHAPE: Record<StatsPeriod, { points: number; bucketSeconds: number }> = {
  '1h': { points: 60, bucketSeconds: 60 },
  '3h': { points: 60, bucketSeconds: 3 * 60 },
  '12h': { points: 60, bucketSeconds: 12 * 60 },
  '1d': { points: 60, bucketSeconds: 24 * 60 },
  '3d': { points: 60, bucketSeconds: 72 * 60 },
  '7d': { points: 60, bucketSeconds: 168 * 60 },
  '30d': { points: 240, bucketSeconds: 3 * HOUR },
};
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const DAILY_POINTS = 7;

export interface IndexStats {
  current_vector_count: number;
  pending_index_count: number;
  daily_query_count: number;
  daily_update_count: number;
  monthly_query_count: number;
  monthly_update_count: number;
  monthly_bandwidth_usage: number;
  monthly_rerank_count: number;
  storage_usage: number;
  query_throughput: ThroughputPoint[];
  update_throughput: ThroughputPoint[];
  /** Request and response bytes per bucket of the period (a searchplane addition to the stats). */
  bandwidth_throughput: ThroughputPoint[];
  days: string[];
  daily_query_requests: ThroughputPoint[];
  daily_update_requests: ThroughputPoint[];
  daily_bandwidths: ThroughputPoint[];
}

export interface AccountStats {
  record_count: number;
  request: number;
  bandwidth: number;
  storage: number;
  rerank_count: number;
}

const NO_DATA: IndexDataSummary = { vectorCount: 0, pendingVectorCount: 0, storageBytes: 0 };

/** Usage statistics computed from the metered per-minute usage and the indexes' data. */
export class UsageStatsService {
  constructor(
    private readonly indexes: SearchIndexService,
    private readonly usage: UsageMeter,
    private readonly clock: Clock,
    private readonly data?: IndexDataLifecycle,
  ) {}

  async indexStats(customerId: string, id: string, period: StatsPeriod): Promise<IndexStats> {
    const index = await this.indexes.requireOwned(customerId, id);
    const now = Math.floor(this.clock() / 1000);
    const { points, bucketSeconds } = PERIOD_SHAPE[period];
    const lastBucket = now - (now % bucketSeconds);
    const firstBucket = lastBucket - (points - 1) * bucketSeconds;
    const today = utcDayStart(now);
    const firstDay = today - (DAILY_POINTS - 1) * 86_400;

    const [series, daily, todayTotals, monthTotals, data] = await Promise.all([
      this.usage.buckets([index.id], firstBucket, lastBucket + bucketSeconds, bucketSeconds),
      this.usage.buckets([index.id], firstDay, today + 86_400, 86_400),
      this.usage.totals([index.id], today, now + 60),
      this.usage.totals([index.id], utcMonthStart(now), now + 60),
      this.data?.describeIndexData(index.id) ?? NO_DATA,
    ]);
    const seriesOf = (
      start: number,
      count: number,
      step: number,
      map: Map<number, UsageCounters>,
      pick: (c: UsageCounters) => number,
    ) =>
      Array.from({ length: count }, (_, i) => {
        const at = start + i * step;
        const counters = map.get(at);
        return { x: formatSeriesTime(at), y: counters ? pick(counters) : 0 };
      });

    return {
      current_vector_count: data.vectorCount,
      pending_index_count: data.pendingVectorCount,
      daily_query_count: todayTotals.queries,
      daily_update_count: todayTotals.updates,
      monthly_query_count: monthTotals.queries,
      monthly_update_count: monthTotals.updates,
      monthly_bandwidth_usage: monthTotals.bandwidth,
      monthly_rerank_count: monthTotals.reranks,
      storage_usage: data.storageBytes,
      query_throughput: seriesOf(firstBucket, points, bucketSeconds, series, (c) => c.queries),
      update_throughput: seriesOf(firstBucket, points, bucketSeconds, series, (c) => c.updates),
      bandwidth_throughput: seriesOf(firstBucket, points, bucketSeconds, series, (c) => c.bandwidth),
      days: Array.from(
        { length: DAILY_POINTS },
        (_, i) => WEEKDAYS[new Date((firstDay + i * 86_400) * 1000).getUTCDay()],
      ),
      daily_query_requests: seriesOf(firstDay, DAILY_POINTS, 86_400, daily, (c) => c.queries),
      daily_update_requests: seriesOf(firstDay, DAILY_POINTS, 86_400, daily, (c) => c.updates),
      daily_bandwidths: seriesOf(firstDay, DAILY_POINTS, 86_400, daily, (c) => c.bandwidth),
    };
  }

  /** Account totals: documents and storage now, requests, bandwidth and reranks this UTC month. */
  async accountStats(customerId: string): Promise<AccountStats> {
    const indexes = await this.indexes.list(customerId);
    const ids = indexes.map((index) => index.id);
    const now = Math.floor(this.clock() / 1000);
    const [totals, data] = await Promise.all([
      this.usage.totals(ids, utcMonthStart(now), now + 60),
      Promise.all(ids.map((id) => this.data?.describeIndexData(id) ?? NO_DATA)),
    ]);
    return {
      record_count: data.reduce((sum, d) => sum + d.vectorCount, 0),
      request: totals.queries + totals.updates,
      bandwidth: totals.bandwidth,
      storage: data.reduce((sum, d) => sum + d.storageBytes, 0),
      rerank_count: totals.reranks,
    };
  }
}
