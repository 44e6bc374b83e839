import { describe, expect, test } from 'vitest';
import { RemoteError } from './http-request.js';
import { DEFAULT_RETRY_POLICY, retryDelay, withRetries } from './retry.js';

const policy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 250 };
const http = (status: number, retryAfterMs?: number) => new RemoteError(`${status} x`, 'http', status, retryAfterMs);
const network = new RemoteError('cannot reach http://127.0.0.1:9/: connection refused', 'network');

describe('retryDelay', () => {
  test('waits what Retry-After says on 429 and 503', () => {
    expect(retryDelay(http(429, 1000), 1, policy)).toBe(1000);
    expect(retryDelay(http(503, 0), 1, policy)).toBe(0);
  });

  test('gives up on a Retry-After longer than maxRetryAfterMs (a used-up daily quota)', () => {
    expect(retryDelay(http(429, policy.maxRetryAfterMs + 1), 1, policy)).toBeNull();
  });

  test('backs off exponentially with jitter, capped, when there is no Retry-After', () => {
    expect(retryDelay(http(500), 1, policy, () => 1)).toBe(100);
    expect(retryDelay(http(500), 2, policy, () => 1)).toBe(200);
    expect(retryDelay(http(500), 3, policy, () => 1)).toBe(250);
    expect(retryDelay(http(500), 2, policy, () => 0)).toBe(100);
  });

  test.each([400, 401, 403, 404, 409, 413])('does not retry %i', (status) => {
    expect(retryDelay(http(status), 1, policy)).toBeNull();
  });

  test('retries 429 only when the policy allows it (not the failed-login throttle)', () => {
    expect(retryDelay(http(429, 1000), 1, { ...policy, retryTooManyRequests: false })).toBeNull();
    expect(retryDelay(http(503, 1000), 1, { ...policy, retryTooManyRequests: false })).toBe(1000);
  });

  test('retries an unreachable server only when the policy allows it', () => {
    expect(retryDelay(network, 1, policy)).toBeNull();
    expect(retryDelay(network, 1, { ...policy, retryNetwork: true }, () => 1)).toBe(100);
  });

  test('stops after maxAttempts, and never retries other errors', () => {
    expect(retryDelay(http(503, 10), policy.maxAttempts, policy)).toBeNull();
    expect(retryDelay(new Error('bug'), 1, policy)).toBeNull();
  });
});

describe('withRetries', () => {
  test('retries until success, sleeping the delays and telling the listener', async () => {
    const outcomes = [http(429, 1000), http(502), 'ok'];
    const sleeps: number[] = [];
    const notices: number[] = [];
    const result = await withRetries(
      async () => {
        const next = outcomes.shift();
        if (next instanceof Error) throw next;
        return next;
      },
      policy,
      { sleep: async (ms) => void sleeps.push(ms), random: () => 1, onRetry: ({ attempt }) => notices.push(attempt) },
    );
    expect(result).toBe('ok');
    expect(sleeps).toEqual([1000, 200]);
    expect(notices).toEqual([1, 2]);
  });

  test('rethrows the last error once attempts run out', async () => {
    let calls = 0;
    const last = http(503);
    await expect(
      withRetries(
        async () => {
          calls++;
          throw calls === policy.maxAttempts ? last : http(503);
        },
        policy,
        { sleep: async () => {} },
      ),
    ).rejects.toBe(last);
    expect(calls).toBe(policy.maxAttempts);
  });
});
