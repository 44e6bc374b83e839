import { expect, test } from 'vitest';
import { backoffDelay } from './backoff.js';

test('doubles from the base up to the cap', () => {
  const options = { baseMs: 200, maxMs: 1000 };
  expect([1, 2, 3, 4, 5].map((retry) => backoffDelay(retry, options))).toEqual([200, 400, 800, 1000, 1000]);
});

test('with jitter, draws between half and all of the delay', () => {
  const options = { baseMs: 500, maxMs: 20_000, jitter: true };
  expect(backoffDelay(2, options, () => 0)).toBe(500);
  expect(backoffDelay(2, options, () => 1)).toBe(1000);
  expect(backoffDelay(7, options, () => 1)).toBe(20_000);
});
