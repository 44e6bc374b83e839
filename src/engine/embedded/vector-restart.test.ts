import { afterEach, expect, it, vi } from 'vitest';
import type { HnswWorker } from './hnsw-worker-client.js';
import { NamespaceVectors } from './namespace-vectors.js';
import { encodeVector } from './vector-codes.js';

/**
 * NamespaceVectors.restart (a graph that failed to follow a commit) against a scripted worker, so
 * that the order of its requests and replies is the test's to choose.
 */
interface Listener {
  added(labels: Float64Array): void;
  lost(): void;
}

function scriptedWorker() {
  const calls: string[] = [];
  const listeners = new Map<string, Listener>();
  const closes = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
  let next = 1;
  const worker = {
    async open(_file: string, _dimensions: number, _settings: object, listener: Listener) {
      const graph = `g${next++}`;
      calls.push(`open ${graph}`);
      listeners.set(graph, listener);
      return { graph, labels: [], unreadable: undefined };
    },
    async add(graph: string, labels: Float64Array) {
      calls.push(`add ${graph} ${[...labels].join(',')}`);
    },
    async delete() {
      return 0;
    },
    close(graph: string, persist: boolean) {
      calls.push(`close ${graph} persist=${persist}`);
      return new Promise<void>((resolve, reject) => closes.set(graph, { resolve, reject }));
    },
    async persist(graph: string) {
      calls.push(`persist ${graph}`);
      return true;
    },
  };
  return {
    worker: worker as unknown as HnswWorker,
    calls,
    listeners,
    finishClose: (graph: string) => closes.get(graph)!.resolve(),
    /** As HnswWorker.exited(): outstanding requests reject, then every open graph's listener hears lost(). */
    die: () => {
      for (const { reject } of closes.values()) reject(new Error('the vector index worker exited'));
      const open = [...listeners.values()];
      listeners.clear();
      for (const listener of open) listener.lost();
    },
  };
}

function namespaceVectors(worker: HnswWorker, live: number[]) {
  return new NamespaceVectors(
    '/nonexistent/vectors.hnsw',
    2,
    { m: 8, efConstruction: 16, efSearch: 16 },
    {
      liveLabels: () => live,
      vectors: (labels) => new Map(labels.map((label) => [label, encodeVector(new Float32Array([1, 0]))])),
    },
    { info() {}, warn() {}, error() {} },
    worker,
    64,
  );
}

afterEach(() => {
  vi.useRealTimers();
});

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

it('closes the graph without writing it and opens the file again only once that close is done', async () => {
  const { worker, calls, listeners, finishClose } = scriptedWorker();
  const vectors = namespaceVectors(worker, [1, 2]);
  await vectors.load();
  expect(calls).toEqual(['open g1', 'add g1 1,2']);

  vectors.restart();
  await tick();
  // The old graph may still be writing its file (a persist under way): no open until its close ends.
  expect(calls.slice(2)).toEqual(['close g1 persist=false']);
  finishClose('g1');
  await tick();
  expect(calls.slice(3)).toEqual(['open g2', 'add g2 1,2']);
  expect(vectors.pendingCount).toBe(2);

  // The closed graph's late report of its insertions is not the new graph's progress.
  listeners.get('g1')!.added(new Float64Array([1, 2]));
  expect(vectors.pendingCount).toBe(2);
  listeners.get('g2')!.added(new Float64Array([1, 2]));
  expect(vectors.pendingCount).toBe(0);
});

it('writes nothing: neither the restart nor a persist while the new graph loads writes the old graph', async () => {
  const { worker, calls, finishClose } = scriptedWorker();
  const vectors = namespaceVectors(worker, [1]);
  await vectors.load();
  vectors.restart();
  await vectors.persist(); // between the restart and the reload: there is no graph to write
  finishClose('g1');
  await tick();
  expect(calls).toEqual(['open g1', 'add g1 1', 'close g1 persist=false', 'open g2', 'add g2 1']);
  await vectors.persist();
  expect(calls.at(-1)).toBe('persist g2');
});

it('opens nothing for a restart whose worker died while the old graph closed; the reload opens the file once', async () => {
  vi.useFakeTimers();
  const { worker, calls, die, finishClose } = scriptedWorker();
  const vectors = namespaceVectors(worker, [1, 2]);
  await vectors.load();
  vectors.restart();
  await vi.advanceTimersByTimeAsync(10);
  expect(calls.slice(2)).toEqual(['close g1 persist=false']);

  die();
  await vi.advanceTimersByTimeAsync(10);
  // The restart's open would have gone to the worker's successor and never been closed.
  expect(calls.slice(3)).toEqual([]);
  await vi.advanceTimersByTimeAsync(1000);
  expect(calls.slice(3)).toEqual(['open g2', 'add g2 1,2']);
  const disposed = vectors.dispose(false);
  await vi.advanceTimersByTimeAsync(10);
  expect(calls.slice(5)).toEqual(['close g2 persist=true']);
  finishClose('g2');
  await disposed;
});
