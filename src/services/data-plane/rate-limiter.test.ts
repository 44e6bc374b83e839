import { expect, test } from 'vitest';
import { FixedWindowRateLimiter } from './rate-limiter.js';

test('allows `limit` requests per second window and says how long until the next one', () => {
  let now = 10_250;
  const limiter = new FixedWindowRateLimiter(() => now);
  expect(limiter.take('a', 2).retryAfterMs).toBe(0);
  expect(limiter.take('a', 2).retryAfterMs).toBe(0);
  expect(limiter.take('a', 2)).toEqual({ retryAfterMs: 750, limit: 2 });
  expect(limiter.take('b', 2).retryAfterMs).toBe(0);
  now = 11_000;
  expect(limiter.take('a', 2).retryAfterMs).toBe(0);
});

test('refused requests do not count, -1 is unlimited and 0 refuses everything', () => {
  const limiter = new FixedWindowRateLimiter(() => 0);
  expect(limiter.take('a', 1).retryAfterMs).toBe(0);
  for (let i = 0; i < 5; i++) expect(limiter.take('a', 1).retryAfterMs).toBe(1000);
  for (let i = 0; i < 100; i++) expect(limiter.take('u', -1).retryAfterMs).toBe(0);
  expect(limiter.take('z', 0).retryAfterMs).toBe(1000);
});

test('forget drops the windows of one prefix only', () => {
  const limiter = new FixedWindowRateLimiter(() => 0);
  limiter.take('idx1\u0000query', 1);
  limiter.take('idx2\u0000query', 1);
  limiter.forget('idx1\u0000');
  expect(limiter.take('idx1\u0000query', 1).retryAfterMs).toBe(0);
  expect(limiter.take('idx2\u0000query', 1).retryAfterMs).toBe(1000);
});
