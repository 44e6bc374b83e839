import { backoffDelay, sleep as wait } from '../../backoff.js';
import { RemoteError } from './http-request.js';

/** How often and how long to retry a call that failed with 429, 5xx or (optionally) no answer. */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** First backoff when the server gives no Retry-After; doubles each attempt. */
  baseDelayMs: number;
  maxDelayMs: number;
  /**
   * A longer Retry-After is not waited for: it means a daily or monthly quota is used up, and
   * a command that sleeps for hours looks hung.
   */
  maxRetryAfterMs: number;
  /** Whether a server that cannot be reached is retried too (idempotent data-plane calls). */
  retryNetwork: boolean;
  /**
   * Whether 429 is retried. Not on the management API, where it means too many failed logins:
   * waiting does not fix a wrong key.
   */
  retryTooManyRequests: boolean;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
  retryNetwork: false,
  retryTooManyRequests: true,
};

/** Told before each wait, so a progress display can say why nothing moves. */
export type RetryListener = (event: { attempt: number; delayMs: number; error: RemoteError }) => void;

export interface RetryHooks {
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  onRetry?: RetryListener;
}

/**
 * How long to wait before attempt `attempt + 1` after `error`, or null to give up: only
 * RemoteErrors with status 429 or 5xx (and network failures when the policy says so) are
 * retried; the server's Retry-After wins over the exponential backoff (with jitter).
 */
export function retryDelay(error: unknown, attempt: number, policy: RetryPolicy, random = Math.random): number | null {
  if (!(error instanceof RemoteError) || attempt >= policy.maxAttempts) return null;
  const retryable =
    error.kind === 'network'
      ? policy.retryNetwork
      : (error.status === 429 && policy.retryTooManyRequests) || (error.status ?? 0) >= 500;
  if (!retryable) return null;
  if (error.retryAfterMs !== undefined) {
    return error.retryAfterMs <= policy.maxRetryAfterMs ? error.retryAfterMs : null;
  }
  return backoffDelay(attempt, { baseMs: policy.baseDelayMs, maxMs: policy.maxDelayMs, jitter: true }, random);
}

/** Runs `call` until it succeeds or {@link retryDelay} says to give up (then rethrows its error). */
export async function withRetries<T>(call: () => Promise<T>, policy: RetryPolicy, hooks: RetryHooks = {}): Promise<T> {
  const sleep = hooks.sleep ?? wait;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const delayMs = retryDelay(error, attempt, policy, hooks.random);
      if (delayMs === null) throw error;
      hooks.onRetry?.({ attempt, delayMs, error: error as RemoteError });
      await sleep(delayMs);
    }
  }
}
