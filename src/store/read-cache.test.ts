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

test('scopes are separate key spaces, all emptied when the change token moves', async () => {
  let token = 'a';
  const cache = new ReadCache(() => token);
  const accounts = cache.scope<string>();
  const indexes = cache.scope<string>();
  await accounts.get('same-key', async () => 'account');
  await indexes.get('same-key', async () => 'index');
  await cache.get('same-key', async () => 'general');
  expect(accounts.peek('same-key')).toBe('account');
  expect(indexes.peek('same-key')).toBe('index');
  expect(await cache.get('same-key', async () => 'reloaded')).toBe('general');
  token = 'b';
  // A peek in one scope notices the new token and empties every scope.
  expect(indexes.peek('same-key')).toBeUndefined();
  expect(accounts.peek('same-key')).toBeUndefined();
  expect(await cache.get('same-key', async () => 'reloaded')).toBe('reloaded');
});

test('a scope keeps at most maxEntries values, then starts again', async () => {
  const cache = new ReadCache(() => 'a', 2);
  const scope = cache.scope<number>();
  const other = cache.scope<number>();
  await other.get('kept', async () => 0);
  for (const [i, key] of ['x', 'y', 'z'].entries()) await scope.get(key, async () => i);
  expect(scope.peek('x')).toBeUndefined();
  expect(scope.peek('z')).toBe(2);
  // The other scope's values count against its own bound only.
  expect(other.peek('kept')).toBe(0);
});
