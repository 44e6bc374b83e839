import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { checkTargets, datasetCandidates, type GateTargets, parseTargets } from './eval-gate.js';
import type { ConfigurationResult, EvaluationReport } from './evaluation-report.js';

const COMMITTED = new URL('../../eval/targets.json', import.meta.url);

const targets: GateTargets = {
  semanticWeights: [0, 0.75],
  reranking: 'both',
  topK: 100,
  minimums: [
    { name: 'default request', semanticWeight: 0.75, reranking: false, metric: 'ndcgAt10', min: 0.7 },
    { name: 'full text only', semanticWeight: 0, reranking: false, metric: 'ndcgAt10', min: 0.69 },
  ],
  rerankingNotWorse: [{ semanticWeight: 0.75, metric: 'ndcgAt10' }],
};

function reportWith(ndcg: Record<string, number>): EvaluationReport {
  const configurations: ConfigurationResult[] = Object.entries(ndcg).map(([key, ndcgAt10]) => {
    const [weight, reranking] = key.split('/');
    return {
      semanticWeight: Number(weight),
      reranking: reranking === 'on',
      ndcgAt10,
      recallAt100: 0.9,
      mrrAt10: 0.6,
      latencyMs: { p50: 1, p95: 2, mean: 1 },
    };
  });
  return {
    dataset: { path: '/d', split: 'test', documents: 1, queries: 1, truncatedDocuments: 0 },
    embedder: 'e',
    reranker: 'builtin',
    topK: 100,
    inputEnrichment: false,
    indexing: { indexMs: 1, vectorsReadyMs: 1 },
    configurations,
    warnings: [],
  };
}

describe('parseTargets', () => {
  test('the committed eval/targets.json is valid and holds the targets of issue #9', () => {
    const parsed = parseTargets(JSON.parse(readFileSync(COMMITTED, 'utf8')), 'eval/targets.json');
    expect(parsed.minimums.map((t) => [t.semanticWeight, t.reranking, t.metric, t.min])).toEqual([
      [0.75, false, 'ndcgAt10', 0.7],
      [0, false, 'ndcgAt10', 0.69],
    ]);
    expect(parsed.rerankingNotWorse).toEqual([{ semanticWeight: 0.75, metric: 'ndcgAt10' }]);
    expect(parsed.topK).toBeGreaterThanOrEqual(100);
  });

  test('lists every problem at once, including targets on configurations the gate would not run', () => {
    const bad = {
      semanticWeights: [0.75],
      reranking: 'off',
      topK: 0,
      minimums: [
        { name: 'x', semanticWeight: 0.5, reranking: false, metric: 'ndcgAt10', min: 0.7 },
        { name: 'y', semanticWeight: 0.75, reranking: false, metric: 'precision', min: 2 },
      ],
      rerankingNotWorse: [{ semanticWeight: 0.75, metric: 'ndcgAt10' }],
    };
    expect(() => parseTargets(bad, 'targets.json')).toThrow(
      /^targets\.json:\n {2}- topK.*\n {2}- minimums\[0\] names a configuration.*\n {2}- minimums\[1\]\.metric.*\n {2}- minimums\[1\]\.min.*\n {2}- rerankingNotWorse\[0\] needs that weight run with and without reranking/,
    );
    expect(() => parseTargets(null, 't.json')).toThrow(/semanticWeights.*\n.*reranking.*\n.*topK/);
  });
});

describe('checkTargets', () => {
  test('all targets reached: no misses, one description per target', () => {
    const { misses, checks } = checkTargets(reportWith({ '0/off': 0.7, '0.75/off': 0.71, '0.75/on': 0.71 }), targets);
    expect(misses).toEqual([]);
    expect(checks).toEqual([
      'default request (semanticWeight 0.75) nDCG@10 0.7100 >= 0.7000',
      'full text only (semanticWeight 0) nDCG@10 0.7000 >= 0.6900',
      'reranking (semanticWeight 0.75) nDCG@10 0.7100 >= 0.7100 without it',
    ]);
  });

  test('every miss is reported, with the value, the bound and which way it failed', () => {
    const { misses } = checkTargets(reportWith({ '0/off': 0.6899, '0.75/off': 0.672, '0.75/on': 0.648 }), targets);
    expect(misses).toEqual([
      'default request (semanticWeight 0.75) nDCG@10 0.6720 < 0.7000',
      'full text only (semanticWeight 0) nDCG@10 0.6899 < 0.6900',
      'reranking (semanticWeight 0.75) nDCG@10 0.6480 < 0.6720 without it',
    ]);
  });

  test('a missing configuration is an error, not a pass', () => {
    expect(() => checkTargets(reportWith({ '0.75/off': 0.9 }), targets)).toThrow(
      /no result for semanticWeight 0, reranking false/,
    );
  });
});

describe('datasetCandidates', () => {
  test('SEARCHPLANE_EVAL_DATASET alone when set; else beside the repository, then /work/shared', () => {
    expect(datasetCandidates('/ci/repo', { SEARCHPLANE_EVAL_DATASET: '/data/scifact' })).toEqual(['/data/scifact']);
    expect(datasetCandidates('/ci/repo', {})).toEqual(['/ci/shared/datasets/scifact', '/work/shared/datasets/scifact']);
  });
});
