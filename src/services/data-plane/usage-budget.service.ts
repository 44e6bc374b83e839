import type { UsageCounters } from '../../store/repositories/usage.repository.js';
import { type Clock, utcDayStart, utcMonthStart, utcNextMonthStart } from '../clock.js';
import type { UsageMeter } from '../usage-meter.service.js';

/** What an index has used in the current UTC day (queries, updates) and month (bandwidth, reranks). */
export interface UsageSoFar {
  dailyQueries: number;
  dailyUpdates: number;
  monthlyBandwidth: number;
  monthlyReranks: number;
  /** Unix seconds when the daily counters restart. */
  dayEnds: number;
  /** Unix seconds when the monthly counters restart. */
  monthEnds: number;
}

interface Budget {
  dayStart: number;
  monthStart: number;
  counters: UsageSoFar;
  refreshedAt: number;
  refreshing?: Promise<void>;
  touchedAt: number;
}

export interface UsageBudgetsOptions {
  /**
   * How often a budget is re-read from the store, so usage flushed by other nodes counts here too.
   * The re-read happens in the background; requests never wait for it except on first use or
   * when a day or month rolls over.
   */
  refreshMs?: number;
}

const DEFAULT_REFRESH_MS = 5000;
const IDLE_EVICT_MS = 3_600_000;
const SWEEP_THRESHOLD = 10_000;

/**
 * Daily and monthly usage counters per index, kept in memory so quota checks cost no query.
 * Seeded from {@link UsageMeter.totals} (stored usage of every node plus this node's unflushed
 * usage), increased locally as this node records usage, and re-seeded periodically.
 */
export class UsageBudgets {
  private readonly budgets = new Map<string, Budget>();
  private readonly refreshMs: number;

  constructor(
    private readonly usage: UsageMeter,
    private readonly clock: Clock,
    options: UsageBudgetsOptions = {},
  ) {
    this.refreshMs = options.refreshMs ?? DEFAULT_REFRESH_MS;
  }

  /** The usage of the current day and month; awaits the store only when the counters are unknown. */
  async current(indexId: string): Promise<UsageSoFar> {
    const nowMs = this.clock();
    const now = Math.floor(nowMs / 1000);
    const dayStart = utcDayStart(now);
    const monthStart = utcMonthStart(now);
    let budget = this.budgets.get(indexId);
    if (!budget || budget.dayStart !== dayStart || budget.monthStart !== monthStart) {
      if (!budget && this.budgets.size >= SWEEP_THRESHOLD) this.sweep(nowMs);
      budget = {
        dayStart,
        monthStart,
        counters: zero(dayStart, monthStart),
        refreshedAt: Number.NEGATIVE_INFINITY,
        touchedAt: nowMs,
      };
      this.budgets.set(indexId, budget);
    }
    if (budget.refreshedAt === Number.NEGATIVE_INFINITY) {
      // Never loaded (or the first load failed): every request waits for the same read.
      await this.refresh(indexId, budget);
    } else if (nowMs - budget.refreshedAt >= this.refreshMs) {
      // Stale but usable: refresh in the background. A failed re-read keeps the local counts.
      this.refresh(indexId, budget).catch(() => {});
    }
    budget.touchedAt = nowMs;
    return budget.counters;
  }

  /** Adds usage this node just recorded (the same numbers given to UsageMeter.record). */
  add(indexId: string, counters: Partial<UsageCounters>): void {
    const budget = this.budgets.get(indexId);
    if (!budget) return; // seeded later from UsageMeter, which already holds this usage
    budget.counters.dailyQueries += counters.queries ?? 0;
    budget.counters.dailyUpdates += counters.updates ?? 0;
    budget.counters.monthlyBandwidth += counters.bandwidth ?? 0;
    budget.counters.monthlyReranks += counters.reranks ?? 0;
  }

  private refresh(indexId: string, budget: Budget): Promise<void> {
    budget.refreshing ??= (async () => {
      try {
        const monthEnds = utcNextMonthStart(budget.monthStart);
        const dayEnds = budget.dayStart + 86_400;
        const [day, month] = await Promise.all([
          this.usage.totals([indexId], budget.dayStart, dayEnds),
          this.usage.totals([indexId], budget.monthStart, monthEnds),
        ]);
        // Usage only grows within a window; the max guards against a flush that landed between
        // the store read and the unflushed read inside totals() and was seen by neither.
        const counters = budget.counters;
        counters.dailyQueries = Math.max(counters.dailyQueries, day.queries);
        counters.dailyUpdates = Math.max(counters.dailyUpdates, day.updates);
        counters.monthlyBandwidth = Math.max(counters.monthlyBandwidth, month.bandwidth);
        counters.monthlyReranks = Math.max(counters.monthlyReranks, month.reranks);
        budget.refreshedAt = this.clock();
      } finally {
        budget.refreshing = undefined;
      }
    })();
    return budget.refreshing;
  }

  private sweep(nowMs: number): void {
    for (const [id, budget] of this.budgets) if (nowMs - budget.touchedAt > IDLE_EVICT_MS) this.budgets.delete(id);
  }
}

function zero(dayStart: number, monthStart: number): UsageSoFar {
  return {
    dailyQueries: 0,
    dailyUpdates: 0,
    monthlyBandwidth: 0,
    monthlyReranks: 0,
    dayEnds: dayStart + 86_400,
    monthEnds: utcNextMonthStart(monthStart),
  };
}
