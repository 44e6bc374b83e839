import { expect, test } from 'vitest';
import { boundedCache } from './bounded-cache.js';

test('keeps at most max entries, the least recently used going first', () => {
  const cache = boundedCache<string, number>({ max: 2 });
  cache.set('a', 1);
  cache.set('b', 2);
  cache.get('a');
  cache.set('c', 3);
  expect([...cache.keys()].sort()).toEqual(['a', 'c']);
});

test('entries expire by the given clock, reading them does not extend them, setting them does', () => {
  let now = 1_000_000;
  const cache = boundedCache<string, number>({ max: 10, ttl: 100, clock: () => now });
  cache.set('a', 1);
  cache.set('b', 2);
  now += 60;
  expect(cache.get('a')).toBe(1);
  cache.set('b', 2);
  now += 41;
  expect(cache.get('a')).toBeUndefined();
  expect(cache.get('b')).toBe(2);
});
