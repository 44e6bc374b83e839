import { describe, expect, it } from 'vitest';
import { syntheticVector } from '../test-fixtures.js';
import { PendingVectors } from './pending-vectors.js';
import { codeDot, decodeVector, encodeVector } from './vector-codes.js';
import { bestFirst } from './vector-math.js';

const DIMENSIONS = 16;
const code = (label: number) => encodeVector(syntheticVector(`d${label}`, DIMENSIONS));

/** The exact top k of `labels` by the dot product of the query with their codes. */
function bruteForce(query: Float32Array, labels: number[], k: number) {
  return labels
    .map((label) => ({ label, score: codeDot(query, code(label)) }))
    .sort(bestFirst)
    .slice(0, k)
    .map((hit) => hit.label);
}

describe('PendingVectors', () => {
  const count = 9000; // more than one segment
  const pending = new PendingVectors(DIMENSIONS);
  const labels = Array.from({ length: count }, (_, i) => i + 1);
  for (const label of labels) pending.add(label, code(label));
  const query = syntheticVector('q1', DIMENSIONS);

  it('finds the exact nearest codes across segments, oldest first for draining', () => {
    expect(pending.size).toBe(count);
    expect(pending.nearest(query, 5).map((hit) => hit.label)).toEqual(bruteForce(query, labels, 5));
    // Scores are codeDot's, bit for bit, as the graph and SQLite's codes give them.
    for (const hit of pending.nearest(query, 20)) expect(hit.score).toBe(codeDot(query, code(hit.label)));
    expect(pending.score(7, query)).toBe(codeDot(query, code(7)));
    expect(pending.score(count + 1, query)).toBeUndefined();
    expect(pending.oldest(3)).toEqual([1, 2, 3]);
    const out = new Float32Array(DIMENSIONS + 2);
    expect(pending.decodeInto(2, out, 2)).toBe(true);
    expect(Array.from(out.subarray(2))).toEqual(Array.from(decodeVector(code(2))));
  });

  it('filters with a label predicate', () => {
    const accept = (label: number) => label > 8990;
    expect(pending.nearest(query, 5, accept).map((hit) => hit.label)).toEqual(
      bruteForce(
        query,
        labels.filter((label) => label > 8990),
        5,
      ),
    );
  });

  it('forgets deleted vectors, keeping the others intact and in order', () => {
    for (let i = 1; i <= 8192; i++) expect(pending.delete(i)).toBe(true);
    expect(pending.delete(1)).toBe(false);
    expect(pending.size).toBe(count - 8192);
    const left = labels.slice(8192);
    expect(pending.nearest(query, 3).map((hit) => hit.label)).toEqual(bruteForce(query, left, 3));
    expect(pending.oldest(2)).toEqual([8193, 8194]);
    const out = new Float32Array(DIMENSIONS);
    pending.decodeInto(9000, out, 0);
    expect(Array.from(out)).toEqual(Array.from(decodeVector(code(9000))));
    expect(pending.decodeInto(1, out, 0)).toBe(false);
    pending.add(1, encodeVector(query));
    expect(pending.nearest(query, 1)[0].label).toBe(1);
    pending.clear();
    expect(pending.nearest(query, 5)).toEqual([]);
  });
});
