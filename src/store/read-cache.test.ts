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
