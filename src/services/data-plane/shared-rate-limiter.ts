import type { Kysely } from 'kysely';
import { claimRateWindow, pruneRateWindows } from '../../store/repositories/rate-window.repository.js';
import type { DB } from '../../store/schema.js';
import type { Clock } from '../clock.js';
import type { RateDecision, RateLimiter } from './rate-limiter.js';

const WINDOW_MS = 1000;
/** A node claims this share of a window's limit at a time (at least one request). */
const CLAIM_SHARE = 20;
const PRUNE_EVERY_MS = 60_000;
const SWEEP_THRESHOLD = 10_000;

interface Lease {
  windowStart: number;
  /** Requests this node claimed in the window, and how many of them it used. */
  claimed: number;
  used: number;
  /** Nothing more could be claimed: the window's limit is used up across the nodes. */
  spent: boolean;
  claiming?: Promise<void>;
}

/**
 * Per-second limits shared by every node of a PostgreSQL deployment, with fixed one-second windows.
 * Each node claims slices of a window's limit from a shared row (1/20 of the limit, at least one
 * request, per round trip) and spends them locally, so a node pays one query per slice rather than
 * per request, and the nodes together never admit more than the limit in a window. The tolerance
 * is the other way: a slice claimed but unused by one node is lost to the others for that window,
 * so with traffic spread over N nodes up to N slices (N/20 of the limit) may go unused. As with the
 * in-memory limiter, a fixed window may let up to twice the limit through across a boundary.
 */
export class SharedRateLimiter implements RateLimiter {
  private readonly leases = new Map<string, Lease>();
  private prunedAt = 0;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly clock: Clock,
  ) {}

  async take(key: string, limit: number): Promise<RateDecision> {
    if (limit < 0) return { retryAfterMs: 0, limit };
    // Each round either spends a claimed request, or claims more (one claim in flight per key on
    // this node; the others wait for it), or finds the window spent.
    for (;;) {
      const now = this.clock();
      const windowStart = now - (now % WINDOW_MS);
      const lease = this.leaseOf(key, windowStart);
      if (lease.used < lease.claimed) {
        lease.used++;
        return { retryAfterMs: 0, limit };
      }
      if (lease.spent) return { retryAfterMs: windowStart + WINDOW_MS - now, limit };
      lease.claiming ??= this.claim(key, lease, limit).finally(() => {
        lease.claiming = undefined;
      });
      await lease.claiming;
    }
  }

  private leaseOf(key: string, windowStart: number): Lease {
    let lease = this.leases.get(key);
    if (!lease || lease.windowStart !== windowStart) {
      if (!lease && this.leases.size >= SWEEP_THRESHOLD) this.sweep(windowStart);
      lease = { windowStart, claimed: 0, used: 0, spent: false };
      this.leases.set(key, lease);
    }
    return lease;
  }

  /** Claims a slice of the window (or, when the window is nearly spent, a single request). */
  private async claim(key: string, lease: Lease, limit: number): Promise<void> {
    this.prune(lease.windowStart);
    const slice = Math.max(1, Math.ceil(limit / CLAIM_SHARE));
    for (const amount of slice > 1 ? [slice, 1] : [1]) {
      if (limit > 0 && (await claimRateWindow(this.db, key, lease.windowStart, amount, limit))) {
        lease.claimed += amount;
        return;
      }
    }
    lease.spent = true;
  }

  private prune(windowStart: number): void {
    if (windowStart - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = windowStart;
    pruneRateWindows(this.db, windowStart - PRUNE_EVERY_MS).catch(() => {});
  }

  private sweep(currentStart: number): void {
    for (const [key, lease] of this.leases) if (lease.windowStart < currentStart) this.leases.delete(key);
  }
}
