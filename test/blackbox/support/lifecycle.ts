import { afterEach, beforeEach } from 'vitest';
import { killServers } from './searchplane-process.js';
import { createStoreTarget, type StoreTarget } from './store-target.js';

/**
 * Gives each test of the file a fresh store target, and kills every server the test started
 * before removing it. The returned object is refilled before each test.
 */
export function useStoreTarget(): StoreTarget {
  const target = {} as StoreTarget;
  beforeEach(async () => {
    Object.assign(target, await createStoreTarget());
  });
  afterEach(async () => {
    await killServers();
    await target.cleanup();
  });
  return target;
}
