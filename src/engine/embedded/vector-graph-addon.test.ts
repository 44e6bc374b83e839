import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import hnswlib from 'hnswlib-node';
import { afterAll, describe, expect, test } from 'vitest';
import { codeDot, encodeVector } from './vector-codes.js';
import { VectorGraph } from './vector-graph-addon.js';

const DIMENSIONS = 100; // not a multiple of the SIMD width: the scalar tail is exercised
const dir = mkdtempSync(path.join(os.tmpdir(), 'vector-graph-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Unit vectors with mixed signs and a skewed component, like normalized embeddings. */
function unitVectors(count: number, seed: number): Float32Array[] {
  const random = seeded(seed);
  return Array.from({ length: count }, () => {
    const vector = Float32Array.from({ length: DIMENSIONS }, () => (random() - 0.5) * (random() < 0.1 ? 4 : 1));
    const norm = Math.hypot(...vector);
    return vector.map((x) => x / norm);
  });
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i], 0);

function exactTop(data: Float32Array[], query: Float32Array, k: number, accept = (_label: number) => true): number[] {
  return data
    .map((vector, label) => ({ label, score: dot(vector, query) }))
    .filter(({ label }) => accept(label))
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
    .map(({ label }) => label);
}

function built(data: Float32Array[]) {
  const graph = new VectorGraph(DIMENSIONS);
  graph.init(16, 16, 100, 42);
  for (const [label, vector] of data.entries()) {
    if (graph.count() >= graph.capacity()) graph.resize(graph.capacity() * 2);
    graph.add(vector, label);
  }
  return graph;
}

describe('VectorGraph (8-bit codes)', () => {
  const data = unitVectors(2000, 1);
  const queries = unitVectors(50, 2);
  const graph = built(data);

  test('finds the exact nearest neighbours, nearest first, with distances close to 1 - cosine', () => {
    let found = 0;
    for (const query of queries) {
      const { labels, distances } = graph.search(query, 10, 200);
      expect(labels).toBeInstanceOf(Float64Array);
      expect(labels.length).toBe(10);
      const exact = new Set(exactTop(data, query, 10));
      for (const label of labels) if (exact.has(label)) found++;
      for (let i = 0; i < labels.length; i++) {
        expect(Math.abs(distances[i] - (1 - dot(data[labels[i]], query)))).toBeLessThan(0.02);
        if (i > 0) expect(distances[i]).toBeGreaterThanOrEqual(distances[i - 1]);
      }
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
  });

  test('returns only allowed labels when given them', () => {
    const allowed = Float64Array.from({ length: 200 }, (_, i) => i * 7);
    const { labels } = graph.search(queries[0], 10, 200, allowed);
    expect(labels.length).toBe(10);
    for (const label of labels) expect(label % 7).toBe(0);
    const exact = new Set(exactTop(data, queries[0], 10, (label) => label % 7 === 0));
    expect([...labels].filter((label) => exact.has(label)).length).toBeGreaterThanOrEqual(9);
  });

  test('scores labels exactly as codeDot scores their codes, NaN for labels it does not hold', () => {
    const labels = Float64Array.of(3, 17, 1999, 123_456);
    for (const query of queries.slice(0, 5)) {
      const scores = graph.scores(query, labels);
      expect(scores).toBeInstanceOf(Float64Array);
      // The graph keeps each vector's 8-bit code; the same code scored in JavaScript, bit for bit.
      for (let i = 0; i < 3; i++) expect(scores[i]).toBe(codeDot(query, encodeVector(data[labels[i]])));
      expect(scores[3]).toBeNaN();
    }
    expect(() => graph.scores(queries[0], [3] as unknown as Float64Array)).toThrow(/Float64Array/);
  });

  test('removes a label once, and never returns it again', () => {
    const nearest = graph.search(queries[1], 1, 200).labels[0];
    expect(graph.remove(nearest)).toBe(true);
    expect(graph.remove(nearest)).toBe(false);
    expect(graph.remove(999_999)).toBe(false);
    expect([...graph.search(queries[1], 10, 200).labels]).not.toContain(nearest);
    expect(graph.scores(queries[1], Float64Array.of(nearest))[0]).toBeNaN();
    expect(graph.count()).toBe(data.length); // a deleted element keeps its slot until reused
  });

  test('writes and reads back the same graph', async () => {
    const file = path.join(dir, 'roundtrip.hnsw');
    await graph.write(file);
    const copy = new VectorGraph(DIMENSIONS);
    await copy.read(file);
    expect(copy.count()).toBe(graph.count());
    expect([...copy.labels()].sort((a, b) => a - b)).toEqual([...graph.labels()].sort((a, b) => a - b));
    for (const query of queries.slice(0, 5)) {
      expect([...copy.search(query, 10, 200).labels]).toEqual([...graph.search(query, 10, 200).labels]);
    }
  });

  test('rejects a write that does not reach the file whole, and stays usable', async () => {
    // /dev/full takes the open and refuses every byte (ENOSPC), as a full disk does.
    await expect(graph.write('/dev/full')).rejects.toThrow(/not written completely/);
    await expect(graph.write(path.join(dir, 'no-such-dir', 'graph.hnsw'))).rejects.toThrow(/cannot create/);
    const file = path.join(dir, 'after-failure.hnsw');
    await graph.write(file);
    const copy = new VectorGraph(DIMENSIONS);
    await copy.read(file);
    expect(copy.count()).toBe(graph.count());
  });

  test('refuses mutations while a write is in progress, and takes them after', async () => {
    const writing = graph.write(path.join(dir, 'busy.hnsw'));
    expect(() => graph.add(queries[2], 5000)).toThrow(/being written/);
    expect(graph.search(queries[2], 1, 50).labels.length).toBe(1); // searches go on
    await writing;
    graph.resize(graph.capacity() + 1);
    graph.add(queries[2], 5000);
    expect(graph.search(queries[2], 1, 200).labels[0]).toBe(5000);
  });

  test('refuses a file of other dimensions, a float graph from hnswlib-node, and a missing file', async () => {
    const file = path.join(dir, 'small.hnsw');
    const small = new VectorGraph(DIMENSIONS);
    small.init(16, 16, 100, 42);
    small.add(queries[0], 1);
    await small.write(file);
    await expect(new VectorGraph(DIMENSIONS + 1).read(file)).rejects.toThrow(/another vector format/);

    const floatFile = path.join(dir, 'float.hnsw');
    const float = new hnswlib.HierarchicalNSW('ip', DIMENSIONS);
    float.initIndex({ maxElements: 16, m: 16, efConstruction: 100, randomSeed: 42 });
    float.addPoint(Array.from(queries[0]), 1);
    await float.writeIndex(floatFile);
    await expect(new VectorGraph(DIMENSIONS).read(floatFile)).rejects.toThrow(/another vector format/);

    await expect(new VectorGraph(DIMENSIONS).read(path.join(dir, 'absent.hnsw'))).rejects.toThrow(/cannot open/);
  });

  test('checks vectors: a Float32Array of the graph dimensions', () => {
    expect(() => graph.search(new Float32Array(DIMENSIONS - 1), 1, 10)).toThrow(RangeError);
    expect(() => graph.add(Array.from(queries[0]) as unknown as Float32Array, 1)).toThrow(TypeError);
    expect(() => new VectorGraph(DIMENSIONS).search(queries[0], 1, 10)).toThrow(/not initialized/);
    const nan = Float32Array.from(queries[0]);
    nan[3] = Number.NaN;
    expect(() => graph.add(nan, 7000)).toThrow(RangeError);
  });

  test('checks the other arguments before changing anything', () => {
    const count = graph.count();
    const add = graph.add as unknown as (vector: Float32Array) => void;
    expect(() => add(queries[3])).toThrow(TypeError); // no label
    expect(() => graph.add(queries[3], -1)).toThrow(RangeError);
    expect(() => graph.add(queries[3], 1.5)).toThrow(RangeError);
    expect(graph.count()).toBe(count);
    expect(() => graph.search(queries[3], -1, 10)).toThrow(RangeError);
    expect(() => graph.search(queries[3], 1, 10, Int32Array.from([1, 2]) as unknown as Float64Array)).toThrow(
      TypeError,
    );
    expect(() => graph.resize(Number.NaN)).toThrow(RangeError);
  });

  test('release frees the graph: it is then empty and refuses searches', () => {
    const small = built(data.slice(0, 50));
    expect(small.count()).toBe(50);
    small.release();
    expect(small.count()).toBe(0);
    expect(() => small.search(queries[0], 1, 10)).toThrow(/not initialized/);
  });
});

describe('VectorGraph scan (exact search over the transposed codes)', () => {
  const data = unitVectors(1500, 3);
  /** A query zero in most dimensions, as the builtin embedder's of a short text. */
  const sparse = unitVectors(20, 4).map((vector, n) => vector.map((x, d) => ((d * 7 + n) % 9 === 0 ? x : 0)));
  const queries = [...sparse, ...unitVectors(5, 5)];

  /** Exact top k of `vectors` by codeDot, ties by label, as [label, score]. */
  function exactByCode(
    vectors: Map<number, Float32Array>,
    query: Float32Array,
    k: number,
    accept = (_: number) => true,
  ) {
    return [...vectors]
      .filter(([label]) => accept(label))
      .map(([label, vector]): [number, number] => [label, codeDot(query, encodeVector(vector))])
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, k);
  }

  function expectExact(graph: InstanceType<typeof VectorGraph>, vectors: Map<number, Float32Array>, k: number) {
    for (const query of queries) {
      const { labels, scores } = graph.scan(query, k);
      const exact = exactByCode(vectors, query, k);
      // Scores bit for bit; labels too, except between equal scores.
      expect([...scores]).toEqual(exact.map(([, score]) => score));
      for (let i = 0; i < labels.length; i++) {
        if (scores[i] !== scores[i - 1] && scores[i] !== scores[i + 1]) expect(labels[i]).toBe(exact[i][0]);
      }
    }
  }

  test('finds the exact nearest neighbours with codeDot scores, best first', () => {
    const graph = built(data);
    expectExact(graph, new Map(data.map((vector, label) => [label, vector])), 10);
    const { labels } = graph.scan(queries[0], 5000);
    expect(labels.length).toBe(data.length); // k beyond the count: every element
  });

  test('keeps to allowed labels and leaves deleted ones out', () => {
    const graph = built(data);
    const vectors = new Map(data.map((vector, label) => [label, vector]));
    const query = sparse[3];
    const nearest = graph.scan(query, 1).labels[0];
    expect(graph.remove(nearest)).toBe(true);
    vectors.delete(nearest);
    expect([...graph.scan(query, 10).labels]).toEqual(exactByCode(vectors, query, 10).map(([label]) => label));
    const allowed = Float64Array.from({ length: 300 }, (_, i) => i * 5);
    const { labels } = graph.scan(query, 10, allowed);
    expect([...labels]).toEqual(exactByCode(vectors, query, 10, (label) => label % 5 === 0).map(([label]) => label));
  });

  test('follows additions, updates, reused slots and growth after its first scan', () => {
    const graph = built(data.slice(0, 100));
    const vectors = new Map(data.slice(0, 100).map((vector, label) => [label, vector]));
    graph.scan(queries[0], 10); // the transposed copy now exists and must follow every change
    const fresh = unitVectors(450, 6);
    for (const [i, vector] of fresh.slice(0, 400).entries()) {
      if (graph.count() >= graph.capacity()) graph.resize(graph.capacity() * 2);
      graph.add(vector, 1000 + i);
      vectors.set(1000 + i, vector);
    }
    for (let label = 0; label < 50; label++) {
      graph.add(fresh[label + 400], label); // a new vector under an existing label, in place
      vectors.set(label, fresh[label + 400]);
    }
    for (let label = 50; label < 80; label++) {
      graph.remove(label);
      vectors.delete(label);
    }
    for (let i = 0; i < 30; i++) {
      graph.add(data[200 + i], 2000 + i); // takes a deleted element's slot
      vectors.set(2000 + i, data[200 + i]);
    }
    expect(graph.count()).toBe(500);
    expectExact(graph, vectors, 10);
  });

  test('scans a graph read from a file, and refuses once released', async () => {
    const graph = built(data.slice(0, 300));
    graph.scan(queries[0], 1);
    const file = path.join(dir, 'scan.hnsw');
    await graph.write(file);
    const copy = new VectorGraph(DIMENSIONS);
    await copy.read(file);
    expectExact(copy, new Map(data.slice(0, 300).map((vector, label) => [label, vector])), 10);
    graph.release();
    expect(() => graph.scan(queries[0], 1)).toThrow(/not initialized/);
  });

  test('checks its arguments', () => {
    const graph = built(data.slice(0, 10));
    expect(() => graph.scan(new Float32Array(DIMENSIONS - 1), 1)).toThrow(RangeError);
    expect(() => graph.scan(queries[0], -1)).toThrow(RangeError);
    expect(() => graph.scan(queries[0], 1, [1] as unknown as Float64Array)).toThrow(TypeError);
  });
});
