import { LRUCache } from 'lru-cache';
import type { Clock } from './clock.js';

export interface BoundedCacheOptions {
  /** Entries kept at most; past this the least recently used one goes. */
  max: number;
  /** How long an entry lives after it is last set, in ms (reading it does not extend it; none when absent). */
  ttl?: number;
  /** The clock TTLs follow: the service's own, so tests that move it move the cache too. */
  clock?: Clock;
}

/**
 * The one way this code keeps a bounded map: an LRU cache (`lru-cache`), with the bound and the
 * expiry its caller states. The bound is given as a total size of one per entry rather than as
 * lru-cache's `max`, which allocates arrays for `max` entries up front, used or not; this way
 * memory grows with use. TTLs read `clock`
 * on each check rather than lru-cache's cached time, so an injected clock is followed exactly.
 */
export function boundedCache<K extends {}, V extends {}>(options: BoundedCacheOptions): LRUCache<K, V> {
  const clock = options.clock;
  return new LRUCache<K, V>({
    maxSize: options.max,
    sizeCalculation: () => 1,
    ...(options.ttl === undefined ? {} : { ttl: options.ttl }),
    ...(clock === undefined ? {} : { perf: { now: clock }, ttlResolution: 0 }),
  });
}
