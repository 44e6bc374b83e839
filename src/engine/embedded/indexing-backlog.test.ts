import { describe, expect, it } from 'vitest';
import { IndexingBacklog } from './indexing-backlog.js';

/**
 * A backlog whose indexing records what it was given, optionally waiting, or failing the batch
 * with `failOn` (its first `failures` attempts; all of them by default). Retries come after 10 ms,
 * doubling up to 40 ms.
 */
function recording(options: { failOn?: number; failures?: number; gate?: Promise<void>; reportThrows?: boolean } = {}) {
  const indexed: [number, number[]][] = [];
  const errors: { labels: number[]; retryInMs: number | undefined }[] = [];
  let drained = 0;
  let failed = 0;
  const backlog = new IndexingBacklog(
    async (nsId, labels) => {
      await options.gate;
      if (labels.includes(options.failOn ?? -1) && failed < (options.failures ?? Number.POSITIVE_INFINITY)) {
        failed++;
        throw new Error('disk full');
      }
      indexed.push([nsId, labels]);
    },
    (_error, _nsId, labels, retryInMs) => {
      errors.push({ labels, retryInMs });
      if (options.reportThrows) throw new Error('logger down');
    },
    () => drained++,
    { retryFirstMs: 10, retryMaxMs: 40 },
  );
  return { backlog, indexed, errors, drained: () => drained, attempts: () => failed };
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

describe('IndexingBacklog', () => {
  it('indexes batches after the current turn, in the order they were pushed, and counts what waits', async () => {
    const { backlog, indexed } = recording();
    backlog.push(1, [1, 2]);
    backlog.push(2, [3]);
    backlog.push(1, [4]);
    backlog.push(1, []); // nothing to do
    // Acknowledged writes are indexed later, never in the call that pushed them.
    expect(indexed).toEqual([]);
    expect([backlog.count(), backlog.count(1), backlog.count(2), backlog.count(3)]).toEqual([4, 3, 1, 0]);
    await backlog.settled();
    expect(indexed).toEqual([
      [1, [1, 2]],
      [2, [3]],
      [1, [4]],
    ]);
    expect([backlog.count(), backlog.count(1)]).toEqual([0, 0]);
  });

  it('settled() waits for what was pushed before it, not for writes that keep coming meanwhile', async () => {
    const { backlog, indexed } = recording();
    backlog.push(1, [1]);
    backlog.push(1, [2]);
    const settled = backlog.settled();
    // A steady stream of writes while the search waits: each turn pushes one more batch.
    let writing = true;
    let label = 3;
    const writer = (async () => {
      while (writing) {
        backlog.push(1, [label++]);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await settled;
    writing = false;
    await writer;
    expect(indexed.slice(0, 2).map(([, labels]) => labels)).toEqual([[1], [2]]);
    await backlog.settled();
    expect(indexed.map(([, labels]) => labels[0])).toEqual(Array.from({ length: label - 1 }, (_, i) => i + 1));
    expect(backlog.count()).toBe(0);
  });

  it('reports a batch whose indexing fails, goes on with the next, and retries it until it is indexed (even if reporting throws)', async () => {
    for (const reportThrows of [false, true]) {
      const { backlog, indexed, errors, drained } = recording({ failOn: 2, failures: 2, reportThrows });
      backlog.push(1, [1]);
      backlog.push(1, [2, 3]);
      backlog.push(1, [4]);
      // A search does not wait for the failed batch...
      await backlog.settled();
      expect(indexed.map(([, labels]) => labels)).toEqual([[1], [4]]);
      expect(errors).toEqual([{ labels: [2, 3], retryInMs: 10 }]);
      // ...which stays counted, and the backlog is not drained while it waits.
      expect([backlog.count(), backlog.count(1)]).toEqual([2, 2]);
      expect(drained()).toBe(0);
      await until(() => indexed.length === 3);
      expect(indexed.map(([, labels]) => labels)).toEqual([[1], [4], [2, 3]]);
      expect(errors.map((error) => error.retryInMs)).toEqual([10, 20]);
      expect(backlog.count()).toBe(0);
      expect(drained()).toBe(1);
    }
  });

  it('waits twice as long before each retry of a failing batch, up to the longest wait', async () => {
    const { backlog, errors } = recording({ failOn: 1 });
    backlog.push(1, [1]);
    await until(() => errors.length === 5);
    expect(errors.map((error) => error.retryInMs)).toEqual([10, 20, 40, 40, 40]);
    expect(backlog.count()).toBe(1);
    await backlog.close();
  });

  it('close() stops the retries; what failed stays counted (it is indexed at the next open)', async () => {
    const { backlog, attempts, drained } = recording({ failOn: 1 });
    backlog.push(1, [1]);
    await until(() => attempts() === 1);
    expect(backlog.retrying).toBe(1);
    await backlog.close();
    expect(backlog.retrying).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 60)); // past the retry it had scheduled
    expect(attempts()).toBe(1);
    expect(backlog.count()).toBe(1);
    expect(drained()).toBe(0);
  });

  it('a batch that fails while the backlog closes is left for the next open, not retried', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const { backlog, errors } = recording({ failOn: 1, gate });
    backlog.push(1, [1]);
    await new Promise((resolve) => setTimeout(resolve, 5)); // started, held by the gate
    const closing = backlog.close();
    open();
    await closing;
    expect(errors).toEqual([{ labels: [1], retryInMs: undefined }]);
    expect(backlog.retrying).toBe(0);
    expect(backlog.count()).toBe(1);
  });

  it('tells when the last waiting batch is done', async () => {
    const { backlog, drained } = recording();
    backlog.push(1, [1]);
    backlog.push(1, [2]);
    await backlog.settled();
    expect(drained()).toBe(1);
    backlog.push(2, [3]);
    await backlog.settled();
    expect(drained()).toBe(2);
  });

  it('a search does not wait out the pause that gives writes the thread after a slow batch', async () => {
    let release!: () => void;
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const indexed: number[] = [];
    const backlog = new IndexingBacklog(
      async (_nsId, labels) => {
        if (labels[0] === 1) await slow;
        indexed.push(labels[0]);
      },
      () => {},
      () => {},
      { maxPauseMs: 60_000 }, // pauses as long as twice the batch before
    );
    backlog.push(1, [1]);
    await new Promise((resolve) => setTimeout(resolve, 5)); // batch 1 has started
    backlog.push(1, [2]); // a write while it runs: after it, a pause of ~600 ms for writes
    setTimeout(release, 300);
    while (indexed.length === 0) await new Promise((resolve) => setImmediate(resolve));
    // Batch 1 is done and the pause has begun; a search ends it.
    const asked = performance.now();
    await backlog.settled();
    expect(indexed).toEqual([1, 2]);
    expect(performance.now() - asked).toBeLessThan(400);
  });

  it('close() waits for the batch being indexed, then takes no more', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const { backlog, indexed } = recording({ gate });
    backlog.push(1, [1]);
    backlog.push(1, [2]);
    await new Promise((resolve) => setTimeout(resolve, 5)); // the first batch has started, held by the gate
    let closed = false;
    const closing = backlog.close().then(() => {
      closed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(closed).toBe(false);
    open();
    await closing;
    expect(indexed.map(([, labels]) => labels)).toEqual([[1]]);
    // What is left stays counted (it is indexed at the next open), and nothing new is taken.
    backlog.push(1, [3]);
    expect(backlog.count()).toBe(1);
    await backlog.settled(); // returns at once once closed
  });
});
