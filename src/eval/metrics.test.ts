import { describe, expect, test } from 'vitest';
import {
  meanMetrics,
  ndcgAt,
  percentile,
  queryMetrics,
  recallAt,
  reciprocalRankAt,
  type ScoredHit,
  trecOrder,
} from './metrics.js';

// Expected values below were worked out by hand: 1/log2(3) = 0.63093, 1/log2(5) = 0.43068, log2(4) = 2.
const judged = (entries: Record<string, number>) => new Map(Object.entries(entries));
const run = (...pairs: [string, number][]): ScoredHit[] => pairs.map(([id, score]) => ({ id, score }));

describe('a tiny hand-made collection', () => {
  test('graded qrels: linear gain, a judged-irrelevant document first, an unjudged one between', () => {
    // ranking d3 (grade 0), d1 (2), d4 (unjudged), d2 (1)
    // DCG = 2/log2(3) + 1/log2(5) = 1.26186 + 0.43068 = 1.69254; IDCG = 2 + 1/log2(3) = 2.63093
    const metrics = queryMetrics(
      run(['d3', 0.9], ['d1', 0.8], ['d4', 0.7], ['d2', 0.6]),
      judged({ d1: 2, d2: 1, d3: 0 }),
    );
    expect(metrics.ndcgAt10).toBeCloseTo(0.64332, 5); // 2^rel − 1 gain would give 0.63991
    expect(metrics.recallAt100).toBe(1);
    expect(metrics.mrrAt10).toBe(0.5);
  });

  test('graded qrels in the worst order of three: DCG 3.76186 over IDCG 4.76186', () => {
    const ranking = ['g3', 'g2', 'g1'];
    expect(ndcgAt(ranking, judged({ g1: 3, g2: 2, g3: 1 }), 10)).toBeCloseTo(0.79, 5);
  });

  test('ties in score are ordered like trec_eval: by document id, descending', () => {
    // b outranks a at the same score whatever order the engine returned them in
    expect(trecOrder(run(['a', 0.5], ['b', 0.5], ['c', 0.4]))).toEqual(['b', 'a', 'c']);
    // byte order of the ids, not numeric order: "9" > "10"
    expect(trecOrder(run(['10', 0.7], ['9', 0.7]))).toEqual(['9', '10']);
    const metrics = queryMetrics(run(['a', 0.5], ['b', 0.5], ['c', 0.4]), judged({ b: 1 }));
    expect(metrics).toEqual({ ndcgAt10: 1, recallAt100: 1, mrrAt10: 1 });
  });

  test('hits given out of score order are ranked by score', () => {
    expect(queryMetrics(run(['x', 0.1], ['rel', 0.9]), judged({ rel: 1 })).mrrAt10).toBe(1);
  });

  test('no relevant document retrieved: every metric is 0', () => {
    const metrics = queryMetrics(run(['p', 0.9], ['q', 0.8]), judged({ x: 1, y: 1 }));
    expect(metrics).toEqual({ ndcgAt10: 0, recallAt100: 0, mrrAt10: 0 });
  });

  test('nothing retrieved at all: every metric is 0', () => {
    expect(queryMetrics([], judged({ x: 1 }))).toEqual({ ndcgAt10: 0, recallAt100: 0, mrrAt10: 0 });
  });

  test('only judged-irrelevant documents: every metric is 0 even when they are retrieved first', () => {
    expect(queryMetrics(run(['z', 1]), judged({ z: 0 }))).toEqual({ ndcgAt10: 0, recallAt100: 0, mrrAt10: 0 });
  });

  test('a relevant document at rank 11 counts for Recall@100 but not for nDCG@10 or MRR@10', () => {
    const ranking = [...Array.from({ length: 10 }, (_, i) => `n${i}`), 'rel'];
    const judgments = judged({ rel: 1, missing: 1 });
    expect(ndcgAt(ranking, judgments, 10)).toBe(0);
    expect(reciprocalRankAt(ranking, judgments, 10)).toBe(0);
    // the second relevant document is never retrieved (e.g. absent from the corpus): 1 of 2
    expect(recallAt(ranking, judgments, 100)).toBe(0.5);
    expect(recallAt(ranking, judgments, 10)).toBe(0);
  });

  test('the ideal ranking is cut at k: twelve relevant documents retrieved first give nDCG@10 = 1', () => {
    const ids = Array.from({ length: 12 }, (_, i) => `r${i}`);
    const judgments = judged(Object.fromEntries(ids.map((id) => [id, 1])));
    expect(ndcgAt(ids, judgments, 10)).toBe(1);
    // one irrelevant document first: DCG@10 = sum over ranks 2..10, IDCG@10 = sum over 1..10
    const shifted = ['junk', ...ids];
    const dcg = [2, 3, 4, 5, 6, 7, 8, 9, 10].reduce((sum, rank) => sum + 1 / Math.log2(rank + 1), 0);
    expect(ndcgAt(shifted, judgments, 10)).toBeCloseTo(dcg / (dcg + 1), 10);
  });

  test('means are taken over every query, zeros included', () => {
    const perQuery = [
      { ndcgAt10: 1, recallAt100: 1, mrrAt10: 1 },
      { ndcgAt10: 0, recallAt100: 0.5, mrrAt10: 0 },
      { ndcgAt10: 0.5, recallAt100: 0, mrrAt10: 0.5 },
    ];
    expect(meanMetrics(perQuery)).toEqual({ ndcgAt10: 0.5, recallAt100: 0.5, mrrAt10: 0.5 });
    expect(meanMetrics([])).toEqual({ ndcgAt10: 0, recallAt100: 0, mrrAt10: 0 });
  });
});

describe('percentile (nearest rank)', () => {
  test('picks an observed value', () => {
    const values = [5, 1, 4, 2, 3];
    expect(percentile(values, 50)).toBe(3);
    expect(percentile(values, 95)).toBe(5);
    expect(percentile(values, 20)).toBe(1);
    expect(percentile(values, 21)).toBe(2);
    expect(percentile([10], 95)).toBe(10);
    expect(percentile([], 50)).toBe(0);
  });
});
