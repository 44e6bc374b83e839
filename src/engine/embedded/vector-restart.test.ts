import { expect, it } from 'vitest';
import type { HnswWorker } from './hnsw-worker-client.js';
import { NamespaceVectors } from './namespace-vectors.js';

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
  const closes = new Map<string, () => void>();
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
      return new Promise<void>((resolve) => closes.set(graph, resolve));
    },
    async persist() {
      return false;
    },
  };
  return {
    worker: worker as unknown as HnswWorker,
    calls,
    listeners,
    finishClose: (graph: string) => closes.get(graph)!(),
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

it('closes the graph without writing it and opens the file again only once that close is done', async () => {
  const { worker, calls, listeners, finishClose } = scriptedWorker();
  const live = [1, 2];
  const vectors = new NamespaceVectors(
    '/nonexistent/vectors.hnsw',
    2,
    { m: 8, efConstruction: 16, efSearch: 16 },
    { liveLabels: () => live, vectors: (labels) => new Map(labels.map((label) => [label, new Float32Array([1, 0])])) },
    { info() {}, warn() {}, error() {} },
    worker,
    64,
  );
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
