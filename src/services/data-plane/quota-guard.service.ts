import { AppError } from '../../errors.js';
import type { UsageCounters } from '../../store/repositories/usage.repository.js';
import type { Clock } from '../clock.js';
import type { Quotas } from '../plans.js';
import type { UsageMeter } from '../usage-meter.service.js';
import { FixedWindowRateLimiter, type RateLimiter } from './rate-limiter.js';
import { UsageBudgets, type UsageBudgetsOptions } from './usage-budget.service.js';

/** What a data-plane request costs: a query (search/fetch/range), an update (writes), or neither. */
export type RequestKind = 'query' | 'update' | 'none';

/** The index a request is for, with the quotas of its record at the time of the request. */
export interface QuotaSubject {
  indexId: string;
  quotas: Quotas;
}

const UNLIMITED = -1;
const within = (used: number, limit: number) => limit === UNLIMITED || used < limit;

/**
 * Enforces an index's quotas (the `max_*` fields of its record, so plan changes apply at the
 * next request) and records its usage. Every quota of -1 is unlimited.
 * - per request: `max_reads_per_request`, `max_writes_per_request` → 400 `request_limit_exceeded`
 * - per second: `max_query_per_second`, `max_writes_per_second` → 429 `rate_limited` (in memory
 *   when embedded; shared by every node on PostgreSQL, see SharedRateLimiter)
 * - per UTC day / month (all nodes, see {@link UsageBudgets}): `max_daily_queries`,
 *   `max_daily_updates`, `max_monthly_bandwidth` → 429 `quota_exceeded` with Retry-After until the
 *   reset; `max_monthly_reranks` never fails a request, it only turns reranking off.
 * `max_vector_count` is enforced by the engine, atomically with the write.
 */
export class QuotaGuard {
  private readonly rates: RateLimiter;
  private readonly budgets: UsageBudgets;

  constructor(
    private readonly usage: UsageMeter,
    private readonly clock: Clock,
    options: UsageBudgetsOptions & { rates?: RateLimiter } = {},
  ) {
    this.rates = options.rates ?? new FixedWindowRateLimiter(clock);
    this.budgets = new UsageBudgets(usage, clock, options);
  }

  /** Throws `request_limit_exceeded` when `count` items exceed a per-request quota. */
  checkRequestLimit(
    subject: QuotaSubject,
    field: 'max_reads_per_request' | 'max_writes_per_request',
    count: number,
    what: string,
  ): void {
    const limit = subject.quotas[field];
    if (limit !== UNLIMITED && count > limit) {
      throw new AppError('request_limit_exceeded', `${what} is ${count}, above ${field} (${limit}) of this index`, {
        details: [{ field, message: `at most ${limit} per request` }],
      });
    }
  }

  /**
   * Admits one request of `kind` or throws 429. Daily and monthly quotas are checked before the
   * per-second window so that a refused request does not use up a slot.
   */
  async admit(subject: QuotaSubject, kind: RequestKind): Promise<void> {
    const { quotas } = subject;
    const used = await this.budgets.current(subject.indexId);
    const now = this.clock() / 1000;
    if (!within(used.monthlyBandwidth, quotas.max_monthly_bandwidth)) {
      throw quotaExceeded(
        'max_monthly_bandwidth',
        quotas.max_monthly_bandwidth,
        'Monthly bandwidth',
        used.monthEnds - now,
      );
    }
    if (kind === 'none') return;
    const [dailyField, dailyUsed, rateField, noun] =
      kind === 'query'
        ? (['max_daily_queries', used.dailyQueries, 'max_query_per_second', 'queries'] as const)
        : (['max_daily_updates', used.dailyUpdates, 'max_writes_per_second', 'writes'] as const);
    if (!within(dailyUsed, quotas[dailyField])) {
      throw quotaExceeded(dailyField, quotas[dailyField], `Daily ${noun}`, used.dayEnds - now);
    }
    const decision = await this.rates.take(`${subject.indexId}/${kind}`, quotas[rateField]);
    if (decision.retryAfterMs > 0) {
      const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      throw new AppError('rate_limited', `Too many ${noun} per second: ${rateField} is ${decision.limit}`, {
        headers: {
          'retry-after': String(seconds),
          'x-ratelimit-limit': String(decision.limit),
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(seconds),
        },
      });
    }
  }

  /** Whether this month's rerank budget has room; when not, search falls back to default ranking. */
  async rerankAllowed(subject: QuotaSubject): Promise<boolean> {
    const used = await this.budgets.current(subject.indexId);
    return within(used.monthlyReranks, subject.quotas.max_monthly_reranks);
  }

  /** Meters usage of an index now: into the per-minute usage store and the in-memory budgets. */
  record(indexId: string, counters: Partial<UsageCounters>): void {
    this.usage.record(indexId, counters);
    this.budgets.add(indexId, counters);
  }
}

function quotaExceeded(field: string, limit: number, what: string, secondsUntilReset: number): AppError {
  const seconds = Math.max(1, Math.ceil(secondsUntilReset));
  return new AppError('quota_exceeded', `${what} quota exceeded: ${field} is ${limit}; it resets in ${seconds} s`, {
    headers: { 'retry-after': String(seconds), 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': '0' },
  });
}
