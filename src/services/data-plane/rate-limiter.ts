import type { Clock } from '../clock.js';

/** How long a caller must wait, or 0 when the request may pass. */
export interface RateDecision {
  retryAfterMs: number;
  limit: number;
}

/** Per-second request limits: counts one request for `key` against `limit` and says whether it may pass. */
export interface RateLimiter {
  take(key: string, limit: number): RateDecision | Promise<RateDecision>;
}

interface Window {
  start: number;
  count: number;
}

const WINDOW_MS = 1000;
/** Above this many tracked keys, expired windows are swept so idle indexes cost no memory. */
const SWEEP_THRESHOLD = 10_000;

/**
 * Per-second request limits with fixed one-second windows, in memory on this node.
 * A fixed window may let up to twice the limit through across a window boundary; that is
 * accepted for a per-second quota in exchange for O(1) state per key and exact, testable
 * behaviour under an injected clock.
 */
export class FixedWindowRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly clock: Clock) {}

  /**
   * Counts one request for `key` against `limit` per second (-1 = unlimited) and says whether
   * it may pass. A refused request does not count.
   */
  take(key: string, limit: number): RateDecision {
    if (limit < 0) return { retryAfterMs: 0, limit };
    const now = this.clock();
    const start = now - (now % WINDOW_MS);
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      if (!window && this.windows.size >= SWEEP_THRESHOLD) this.sweep(start);
      window = { start, count: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= limit) return { retryAfterMs: start + WINDOW_MS - now, limit };
    window.count++;
    return { retryAfterMs: 0, limit };
  }

  /** Forgets every window whose key starts with `prefix` (a deleted index). */
  forget(prefix: string): void {
    for (const key of this.windows.keys()) if (key.startsWith(prefix)) this.windows.delete(key);
  }

  private sweep(currentStart: number): void {
    for (const [key, window] of this.windows) if (window.start < currentStart) this.windows.delete(key);
  }
}
