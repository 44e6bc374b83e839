import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareDocuments } from '../query/document-validation.js';
import { tempDir } from '../test-fixtures.js';
import { DocumentStore } from './document-store.js';
import type { NamespaceVectors } from './namespace-vectors.js';
import { EXACT_FILTER_LIMIT, semanticCandidates } from './semantic-candidates.js';
import { codeDot, encodeVector } from './vector-codes.js';
import { normalize } from './vector-math.js';

const COUNT = EXACT_FILTER_LIMIT + 500;

/** A graph that finds nothing, as a worst-case approximate search would. */
const emptyGraph = {
  nearest: async () => [],
  nearestPending: () => [],
} as unknown as NamespaceVectors;

describe('semanticCandidates with filters', () => {
  const temp = tempDir();
  let store: DocumentStore;
  const vectors: Float32Array[] = [];

  beforeAll(() => {
    store = new DocumentStore(`${temp.dir}/candidates.sqlite`);
    for (let i = 0; i < COUNT; i++)
      vectors.push(normalize(Float32Array.from({ length: 8 }, (_, d) => Math.sin(i * (d + 1)))));
    const docs = prepareDocuments(Array.from({ length: COUNT }, (_, i) => ({ id: `d${i}`, content: {} })));
    store.write('', docs, vectors, -1);
  });
  afterAll(() => {
    store.close();
    temp.remove();
  });

  const query = normalize(Float32Array.from({ length: 8 }, (_, d) => d - 3));
  const exactTop = (labels: number[], k: number) =>
    labels
      .map((label) => ({ label, score: codeDot(query, encodeVector(vectors[label - 1])) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, k)
      .map((hit) => hit.label);

  it('scores small match sets exactly', async () => {
    const matches = new Set([5, 17, 400, 1999]);
    const found = await semanticCandidates(store, emptyGraph, query, 3, matches, COUNT);
    expect(found.map((hit) => hit.label)).toEqual(exactTop([...matches], 3));
  });

  it('falls back to exact scoring when graph searches come back short, for any selectivity', async () => {
    const matches = new Set(Array.from({ length: EXACT_FILTER_LIMIT + 100 }, (_, i) => i + 1));
    for (const documentCount of [COUNT, 1_000_000]) {
      // COUNT: post-filtering is tried first; 1M: the label-predicate walk is. Both return nothing here.
      const found = await semanticCandidates(store, emptyGraph, query, 20, matches, documentCount);
      expect(found.map((hit) => hit.label)).toEqual(exactTop([...matches], 20));
    }
  });
});
