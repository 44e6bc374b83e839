/** How a delay grows between attempts. */
export interface BackoffOptions {
  /** The delay before the first retry. */
  baseMs: number;
  /** The longest delay. */
  maxMs: number;
  /**
   * Whether each delay is drawn between half and all of its value, so that many clients failing
   * together do not retry together.
   */
  jitter?: boolean;
}

/**
 * The delay before retry number `retry` (1 for the first): `baseMs` doubled each time, at most
 * `maxMs`. The one backoff rule of the CLI, the HTTP providers and the PostgreSQL listener.
 */
export function backoffDelay(retry: number, options: BackoffOptions, random: () => number = Math.random): number {
  const delay = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, retry - 1));
  return options.jitter ? Math.round(delay * (0.5 + random() / 2)) : delay;
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
