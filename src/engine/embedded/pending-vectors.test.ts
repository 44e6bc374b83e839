import { describe, expect, it } from 'vitest';
import { PendingVectors } from './pending-vectors.js';
import { normalize } from './vector-math.js';

/** Unit vectors on a circle in the first two dimensions: label i sits at angle i · step. */
function circlePoint(i: number, step: number): Float32Array {
  const vector = new Float32Array(4);
  vector[0] = Math.cos(i * step);
  vector[1] = Math.sin(i * step);
  return normalize(vector);
}

describe('PendingVectors', () => {
  const count = 9000; // more than one segment
  const step = Math.PI / count;
  const pending = new PendingVectors(4);
  for (let i = 1; i <= count; i++) pending.add(i, circlePoint(i, step));
  const query = circlePoint(0, step);

  it('finds the exact nearest vectors across segments, oldest first for draining', () => {
    expect(pending.size).toBe(count);
    expect(pending.nearest(query, 3).map((hit) => hit.label)).toEqual([1, 2, 3]);
    expect(pending.nearest(query, 1)[0].score).toBeCloseTo(1, 5);
    expect(pending.oldest(3)).toEqual([1, 2, 3]);
    expect(Array.from(pending.vector(2)!)).toEqual(Array.from(circlePoint(2, step)));
  });

  it('filters with a label predicate', () => {
    const accept = (label: number) => label > 8990;
    expect(pending.nearest(query, 5, accept).map((hit) => hit.label)).toEqual([8991, 8992, 8993, 8994, 8995]);
  });

  it('forgets deleted vectors, keeping the others intact and in order', () => {
    for (let i = 1; i <= 8192; i++) expect(pending.delete(i)).toBe(true);
    expect(pending.delete(1)).toBe(false);
    expect(pending.size).toBe(count - 8192);
    expect(pending.nearest(query, 2).map((hit) => hit.label)).toEqual([8193, 8194]);
    expect(pending.oldest(2)).toEqual([8193, 8194]);
    expect(Array.from(pending.vector(9000)!)).toEqual(Array.from(circlePoint(9000, step)));
    pending.add(1, circlePoint(1, step));
    expect(pending.nearest(query, 1)[0].label).toBe(1);
    pending.clear();
    expect(pending.nearest(query, 5)).toEqual([]);
  });
});
