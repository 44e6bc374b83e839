import { setTimeout as sleep } from 'node:timers/promises';

/** The server answered 400: the request (e.g. a query of only whitespace) was refused as invalid. */
export class RefusedRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedRequestError';
  }
}

/** Waits this long when a 429 carries no usable Retry-After. */
const DEFAULT_RETRY_MS = 1000;
/** A server that keeps answering 429 this many times in a row is not going to let the run finish. */
const MAX_RATE_LIMITED = 30;

/**
 * A minimal client of one index's data plane, making the calls the SDK makes (POST, JSON body,
 * bearer token, the `{result}` envelope) with Node's `fetch`. A 429 is waited out (Retry-After) and
 * retried; a 400 throws {@link RefusedRequestError}; any other failure throws an Error with the
 * status and the body.
 */
export class DataPlaneClient {
  constructor(
    /** `<server>/indexes/<endpoint>`. */
    readonly url: string,
    private readonly token: string,
  ) {}

  async call<T>(route: string, body: unknown): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const response = await fetch(`${this.url}/${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      if (response.ok) return (JSON.parse(text) as { result: T }).result;
      if (response.status === 429 && attempt < MAX_RATE_LIMITED) {
        await sleep(retryAfterMs(response.headers.get('retry-after')));
        continue;
      }
      if (response.status === 400) throw new RefusedRequestError(errorMessage(text));
      throw new Error(`${route}: ${response.status} ${text}`);
    }
  }
}

/** Retry-After in seconds or as an HTTP date, in milliseconds from now. */
export function retryAfterMs(header: string | null, now = Date.now()): number {
  if (header === null || header.trim() === '') return DEFAULT_RETRY_MS;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? DEFAULT_RETRY_MS : Math.max(0, date - now);
}

function errorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
  } catch {
    // Not the data plane's envelope: the raw body says more than nothing.
  }
  return body;
}
