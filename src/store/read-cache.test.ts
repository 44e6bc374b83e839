import { expect, test } from 'vitest';
import { ReadCache } from './read-cache.js';

test('serves a cached value until the change token moves', async () => {
  let token = 'a';
  let loads = 0;
  const cache = new ReadCache(() => token);
  const load = async () => ++loads;
  expect(await cache.get('k', load)).toBe(1);
  expect(await cache.get('k', load)).toBe(1);
  token = 'b';
  expect(await cache.get('k', load)).toBe(2);
});

test('does not keep a value when a write happened while it loaded', async () => {
  let token = 'a';
  let loads = 0;
  const cache = new ReadCache(() => token);
  expect(
    await cache.get('k', async () => {
      token = 'b';
      return ++loads;
    }),
  ).toBe(1);
  expect(await cache.get('k', async () => ++loads)).toBe(2);
  expect(await cache.get('k', async () => ++loads)).toBe(2);
});

test('caches nothing when the store cannot tell about changes', async () => {
  let loads = 0;
  const cache = new ReadCache(() => undefined);
  await cache.get('k', async () => ++loads);
  expect(await cache.get('k', async () => ++loads)).toBe(2);
});

test('keeps at most maxEntries values, the least recently used going first', async () => {
  const cache = new ReadCache(() => 'a', 2);
  let loads = 0;
  const load = async () => ++loads;
  await cache.get('x', load);
  await cache.get('y', load);
  await cache.get('x', load);
  await cache.get('z', load);
  expect(loads).toBe(3);
  // x was used after y, so y went.
  expect(await cache.get('x', load)).toBe(1);
  expect(await cache.get('y', load)).toBe(4);
});
