import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { checkTargets, datasetCandidates, type GateTargets, parseTargets } from './eval-gate.js';
import type { ConfigurationResult, EvaluationReport } from './evaluation-report.js';

const COMMITTED = new URL('../../eval/targets.json', import.meta.url);

const targets: GateTargets = {
  datasets: ['a', 'b'],
  semanticWeights: [0, 0.75],
  reranking: 'both',
  topK: 100,
  defaultWeight: 0.75,
  tolerance: 0.005,
  meanAboveFts5: 0.04,
  minimums: { a: 0.7 },
};

/** A report of collection `name` with these nDCG@10 values (FTS5, w 0, default, default + reranking). */
function reportWith(
  name: string,
  ndcg: { fts5: number; w0: number; standard: number; reranked: number },
): EvaluationReport {
  const result = (semanticWeight: number, reranking: boolean, ndcgAt10: number): ConfigurationResult => ({
    semanticWeight,
    reranking,
    ndcgAt10,
    recallAt100: 0.9,
    mrrAt10: 0.6,
    latencyMs: { p50: 1, p95: 2, mean: 1 },
  });
  return {
    dataset: { name, path: `/d/${name}`, split: 'test', documents: 1, queries: 1, truncatedDocuments: 0 },
    embedder: 'e',
    reranker: 'builtin',
    topK: 100,
    inputEnrichment: null,
    indexing: { indexMs: 1, vectorsReadyMs: 1 },
    configurations: [
      result(0, false, ndcg.w0),
      result(0, true, ndcg.w0),
      result(0.75, false, ndcg.standard),
      result(0.75, true, ndcg.reranked),
    ],
    fts5: { ndcgAt10: ndcg.fts5, recallAt100: 0.8, mrrAt10: 0.5 },
    warnings: [],
  };
}

describe('parseTargets', () => {
  test('the committed eval/targets.json is valid and checks all six shared collections', () => {
    const parsed = parseTargets(JSON.parse(readFileSync(COMMITTED, 'utf8')), 'eval/targets.json');
    expect(parsed).toMatchObject({
      datasets: ['scifact', 'nfcorpus', 'cran', 'med', 'cisi', 'lisa'],
      reranking: 'both',
      defaultWeight: 0.75,
      tolerance: 0.005,
      meanAboveFts5: 0.04,
      minimums: { scifact: 0.7 },
    });
    expect(parsed.semanticWeights).toEqual(expect.arrayContaining([0, 0.75]));
    expect(parsed.topK).toBeGreaterThanOrEqual(100);
  });

  test('lists every problem at once', () => {
    const bad = {
      datasets: ['scifact', '../etc'],
      semanticWeights: [0.75],
      reranking: 'off',
      topK: 0,
      defaultWeight: 0.5,
      tolerance: -1,
      meanAboveFts5: 'some',
      minimums: { cran: 1.5 },
    };
    expect(() => parseTargets(bad, 'targets.json')).toThrow(
      new RegExp(
        [
          '^targets\\.json:',
          '  - datasets must be .*',
          '  - semanticWeights must include 0.*',
          '  - reranking must be "both".*',
          '  - topK .*',
          '  - defaultWeight must be one of semanticWeights',
          '  - tolerance .*',
          '  - meanAboveFts5 .*',
          '  - minimums\\.cran names a collection not in datasets',
          '  - minimums\\.cran must be a number from 0 to 1$',
        ].join('\n'),
      ),
    );
    expect(() => parseTargets(null, 't.json')).toThrow(/datasets.*\n.*semanticWeights.*\n.*reranking.*\n.*topK/);
  });
});

describe('checkTargets', () => {
  const good = [
    reportWith('a', { fts5: 0.68, w0: 0.69, standard: 0.72, reranked: 0.716 }),
    reportWith('b', { fts5: 0.3, w0: 0.35, standard: 0.346, reranked: 0.35 }),
  ];

  test('every rule reached: one PASS line per check, in order', () => {
    const checks = checkTargets(good, targets);
    expect(checks.every((check) => check.passed)).toBe(true);
    expect(checks.map((check) => check.line)).toEqual([
      'PASS a: default nDCG@10 0.7200 >= 0.6850 = max(FTS5 0.6800, w 0 0.6900) - 0.005',
      'PASS a: default + reranking nDCG@10 0.7160 >= 0.7150 = default 0.7200 - 0.005',
      'PASS b: default nDCG@10 0.3460 >= 0.3450 = max(FTS5 0.3000, w 0 0.3500) - 0.005',
      'PASS b: default + reranking nDCG@10 0.3500 >= 0.3410 = default 0.3460 - 0.005',
      'PASS mean of 2: default nDCG@10 0.5330 >= 0.5300 = FTS5 0.4900 + 0.04',
      'PASS a: default nDCG@10 0.7200 >= 0.7000 = minimum',
    ]);
  });

  test('each rule fails on its own', () => {
    const failing = (reports: EvaluationReport[]) =>
      checkTargets(reports, targets)
        .filter((check) => !check.passed)
        .map((check) => check.line);
    // Below FTS5 by more than the tolerance (and so below the minimum and the mean target too).
    expect(failing([reportWith('a', { fts5: 0.72, w0: 0.6, standard: 0.71, reranked: 0.71 }), good[1]])).toEqual([
      'FAIL a: default nDCG@10 0.7100 < 0.7150 = max(FTS5 0.7200, w 0 0.6000) - 0.005',
      'FAIL mean of 2: default nDCG@10 0.5280 < 0.5500 = FTS5 0.5100 + 0.04',
    ]);
    // Below full text alone.
    expect(failing([good[0], reportWith('b', { fts5: 0.3, w0: 0.36, standard: 0.35, reranked: 0.35 })])).toEqual([
      'FAIL b: default nDCG@10 0.3500 < 0.3550 = max(FTS5 0.3000, w 0 0.3600) - 0.005',
    ]);
    // Reranking worse than the default by more than the tolerance.
    expect(failing([reportWith('a', { fts5: 0.68, w0: 0.69, standard: 0.72, reranked: 0.714 }), good[1]])).toEqual([
      'FAIL a: default + reranking nDCG@10 0.7140 < 0.7150 = default 0.7200 - 0.005',
    ]);
    // Under the minimum while every comparison holds.
    expect(failing([reportWith('a', { fts5: 0.6, w0: 0.6, standard: 0.69, reranked: 0.69 }), good[1]])).toEqual([
      'FAIL a: default nDCG@10 0.6900 < 0.7000 = minimum',
    ]);
  });

  test('a missing collection or configuration is an error, not a pass', () => {
    expect(() => checkTargets([good[0]], targets)).toThrow(/no result for the collection b/);
    const withoutW0 = { ...good[1], configurations: good[1].configurations.slice(2) };
    expect(() => checkTargets([good[0], withoutW0], targets)).toThrow(
      /b has no result for semanticWeight 0, reranking false/,
    );
  });
});

describe('datasetCandidates', () => {
  test('under SEARCHPLANE_EVAL_DATASETS alone when set; else beside the repository, then /work/shared', () => {
    expect(datasetCandidates('cran', '/ci/repo', { SEARCHPLANE_EVAL_DATASETS: '/data' })).toEqual(['/data/cran']);
    expect(datasetCandidates('cran', '/ci/repo', {})).toEqual([
      '/ci/shared/datasets/cran',
      '/work/shared/datasets/cran',
    ]);
  });
});
