import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { exposedGc } from './exposed-gc.js';
import { DroppedNativeMemory, IdleCollection } from './idle-collection.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function collector() {
  const gc = vi.fn();
  const idle = new IdleCollection(gc, { minDocuments: 100, quietMs: 1000, now: () => Date.now() });
  return { gc, idle };
}

test('collects once when a burst of at least minDocuments has been quiet for quietMs', () => {
  const { gc, idle } = collector();
  for (let i = 0; i < 10; i++) {
    idle.note(20);
    vi.advanceTimersByTime(200);
  }
  expect(gc).not.toHaveBeenCalled();
  vi.advanceTimersByTime(1000);
  expect(gc).toHaveBeenCalledTimes(1);
  vi.advanceTimersByTime(10_000);
  expect(gc).toHaveBeenCalledTimes(1);
});

test('a small burst never collects, and the count starts again after a collection', () => {
  const { gc, idle } = collector();
  idle.note(99);
  vi.advanceTimersByTime(5000);
  expect(gc).not.toHaveBeenCalled();
  idle.note(1);
  vi.advanceTimersByTime(1500);
  expect(gc).toHaveBeenCalledTimes(1);
  idle.note(50);
  vi.advanceTimersByTime(5000);
  expect(gc).toHaveBeenCalledTimes(1);
  idle.note(50);
  vi.advanceTimersByTime(1500);
  expect(gc).toHaveBeenCalledTimes(2);
});

test('without a gc function it does nothing and keeps no timer', () => {
  const idle = new IdleCollection(undefined, { minDocuments: 1, quietMs: 10, now: () => Date.now() });
  idle.note(1000);
  expect(vi.getTimerCount()).toBe(0);
});

test("V8's gc is reachable without --expose-gc on the command line", () => {
  const gc = exposedGc();
  expect(typeof gc).toBe('function');
  gc?.();
});

test('collects once after the work that dropped native memory past the threshold, then counts again', async () => {
  vi.useRealTimers();
  const gc = vi.fn();
  const dropped = new DroppedNativeMemory(gc, 1000);
  dropped.note(600);
  await new Promise((resolve) => setImmediate(resolve));
  expect(gc).not.toHaveBeenCalled();
  dropped.note(600);
  dropped.note(600);
  expect(gc).not.toHaveBeenCalled(); // not in the middle of the work that dropped it
  await new Promise((resolve) => setImmediate(resolve));
  expect(gc).toHaveBeenCalledTimes(1);
  dropped.note(600);
  await new Promise((resolve) => setImmediate(resolve));
  expect(gc).toHaveBeenCalledTimes(1);
});
