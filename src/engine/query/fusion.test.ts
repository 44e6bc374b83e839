import { describe, expect, it } from 'vitest';
import { agreedWeight } from './fusion.js';

/** Cosine similarities that rank `labels` best first. */
const ranked = (labels: number[]) => new Map(labels.map((label, i) => [label, 0.9 - i * 0.01]));
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe('semantic weight scaled by agreement', () => {
  it('keeps the requested weight when the vector top 10 is the full-text top 10', () => {
    expect(agreedWeight(0.75, range(1, 10), ranked(range(1, 10).reverse()))).toBeCloseTo(0.75, 12);
  });

  it('scales the odds of the semantic side by the share of the full-text top 10 it also ranks first', () => {
    // 4 of 10 shared: odds 3 × 0.4 = 1.2, weight 1.2 / 2.2.
    const semantic = ranked([...range(1, 4), ...range(100, 6), ...range(5, 6)]);
    expect(agreedWeight(0.75, range(1, 10), semantic)).toBeCloseTo(1.2 / 2.2, 12);
    expect(agreedWeight(0.75, range(1, 10), ranked(range(100, 20)))).toBe(0);
  });

  it('compares as many as both sides have, and takes 0, 1 and a search without text matches as asked', () => {
    expect(agreedWeight(0.5, [7, 8], ranked([8, 7, 1, 2]))).toBeCloseTo(0.5, 12);
    expect(agreedWeight(0.5, [7, 8], ranked([8, 1, 7, 2]))).toBeCloseTo(1 / 3, 12);
    expect(agreedWeight(0.75, [], ranked([1, 2]))).toBe(0.75);
    expect(agreedWeight(1, [1], ranked([2]))).toBe(1);
    expect(agreedWeight(0, [1], ranked([1]))).toBe(0);
  });
});
