import { describe, expect, test } from 'vitest';
import { LoginThrottle, loginThrottleLimits } from './login-throttle.js';

const START = Date.parse('2026-11-22T12:00:00Z');

function throttleAt(limit = 2, maxTracked?: number) {
  // Times are relative to an arbitrary start: `clock.now = 30_000` is 30 s after it.
  const clock = { now: 0 };
  const throttle = new LoginThrottle(loginThrottleLimits(limit), () => START + clock.now, maxTracked);
  return { clock, throttle };
}

const fail = (throttle: LoginThrottle, account: string, address: string, times: number) => {
  for (let i = 0; i < times; i++) throttle.recordFailure(account, address);
};

describe('LoginThrottle', () => {
  test('exactly the limit of failures is allowed per (account, address), then it waits for the window', () => {
    const { clock, throttle } = throttleAt(2);
    throttle.recordFailure('a', '1.1.1.1');
    expect(throttle.retryAfter('a', '1.1.1.1')).toBe(0);
    throttle.recordFailure('a', '1.1.1.1');
    expect(throttle.retryAfter('a', '1.1.1.1')).toBe(60);
    expect(throttle.retryAfter('a', '2.2.2.2')).toBe(0);
    expect(throttle.retryAfter('b', '1.1.1.1')).toBe(0);
    clock.now = 30_000;
    expect(throttle.retryAfter('a', '1.1.1.1')).toBe(30);
    clock.now = 60_000;
    expect(throttle.retryAfter('a', '1.1.1.1')).toBe(0);
  });

  test('a known good address is still refused for an account it brute-forces itself', () => {
    const { throttle } = throttleAt(2);
    throttle.recordSuccess('a', '1.1.1.1');
    fail(throttle, 'a', '1.1.1.1', 2);
    expect(throttle.retryAfter('a', '1.1.1.1')).toBe(60);
  });

  test('the account ceiling (5x) refuses new addresses but not addresses that logged in before', () => {
    const { throttle } = throttleAt(2);
    throttle.recordSuccess('a', '9.9.9.9');
    for (let i = 0; i < 10; i++) throttle.recordFailure('a', `10.0.0.${i}`);
    expect(throttle.retryAfter('a', '10.0.1.1')).toBe(60);
    expect(throttle.retryAfter('a', '9.9.9.9')).toBe(0);
    expect(throttle.retryAfter('b', '10.0.1.1')).toBe(0);
  });

  test('the address ceiling (10x) refuses accounts new to the address only', () => {
    const { throttle } = throttleAt(2);
    throttle.recordSuccess('known', '1.1.1.1');
    for (let i = 0; i < 19; i++) throttle.recordFailure(`user${i}`, '1.1.1.1');
    expect(throttle.retryAfter('new', '1.1.1.1')).toBe(0);
    throttle.recordFailure('user19', '1.1.1.1');
    expect(throttle.retryAfter('new', '1.1.1.1')).toBe(60);
    expect(throttle.retryAfter('known', '1.1.1.1')).toBe(0);
    expect(throttle.retryAfter('new', '2.2.2.2')).toBe(0);
  });

  test('trust in an address expires after a day', () => {
    const { clock, throttle } = throttleAt(2);
    throttle.recordSuccess('a', '9.9.9.9');
    clock.now = 24 * 3_600_000 + 1;
    for (let i = 0; i < 10; i++) throttle.recordFailure('a', `10.0.0.${i}`);
    expect(throttle.retryAfter('a', '9.9.9.9')).toBe(60);
  });

  test('each success renews the trust for a day from then', () => {
    const { clock, throttle } = throttleAt(2);
    throttle.recordSuccess('a', '9.9.9.9');
    clock.now = 12 * 3_600_000;
    throttle.recordSuccess('a', '9.9.9.9');
    clock.now = 30 * 3_600_000;
    for (let i = 0; i < 10; i++) throttle.recordFailure('a', `10.0.0.${i}`);
    expect(throttle.retryAfter('a', '9.9.9.9')).toBe(0);
    expect(throttle.retryAfter('a', '8.8.8.8')).toBe(60);
  });

  test('state is bounded: the least recently used keys are forgotten first', () => {
    const { clock, throttle } = throttleAt(1000, 100);
    for (let i = 0; i < 1000; i++) {
      clock.now = i;
      throttle.recordFailure(`user${i}`, `10.0.${i >> 8}.${i & 255}`);
      throttle.recordSuccess(`user${i}`, '1.1.1.1');
    }
    expect(throttle.tracked).toEqual({ pairs: 100, accounts: 100, addresses: 100, trusted: 100 });
  });
});
