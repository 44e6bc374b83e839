import { describe, expect, test } from 'vitest';
import { type EvaluationReport, formatReportTable, meanRows, reportJson } from './evaluation-report.js';

function report(name: string, fts5: number, ndcg: [number, number]): EvaluationReport {
  return {
    dataset: { name, path: `/data/${name}`, split: 'test', documents: 5183, queries: 300, truncatedDocuments: 0 },
    embedder: 'builtin-hash-v2/512',
    reranker: 'builtin',
    topK: 100,
    inputEnrichment: null,
    indexing: { indexMs: 4234, vectorsReadyMs: 612 },
    configurations: [
      {
        semanticWeight: 0.75,
        reranking: false,
        ndcgAt10: ndcg[0],
        recallAt100: 0.9,
        mrrAt10: 0.6321,
        latencyMs: { p50: 12.04, p95: 25.36, mean: 14 },
      },
      {
        semanticWeight: 0.75,
        reranking: true,
        ndcgAt10: ndcg[1],
        recallAt100: 0.8994,
        mrrAt10: 0.61,
        latencyMs: { p50: 123.45, p95: 1234.5, mean: 200 },
      },
    ],
    fts5: { ndcgAt10: fts5, recallAt100: 0.8, mrrAt10: 0.5 },
    warnings: [],
  };
}

const scifact = { ...report('scifact', 0.687, [0.70049, 0.6481]), warnings: ['2 queries were refused'] };
const med = {
  ...report('med', 0.7, [0.75, 0.76]),
  inputEnrichment: false,
  dataset: { name: 'med', path: '/data/med', split: 'test', documents: 1033, queries: 30, truncatedDocuments: 1 },
};

describe('formatReportTable', () => {
  test('one collection: its facts, then FTS5 and one aligned row per configuration, no mean rows', () => {
    expect(formatReportTable([scifact]).split('\n')).toEqual([
      'dataset scifact: /data/scifact (split test)',
      'documents 5183 · queries 300 · topK 100 · input enrichment not sent (the index’s setting: on)',
      'embedder builtin-hash-v2/512 · reranker builtin',
      'index time 4.2 s · vectors fully indexed after 612 ms',
      '',
      'collection  configuration       nDCG@10  Recall@100  MRR@10  p50 ms  p95 ms  mean ms',
      '----------  ------------------  -------  ----------  ------  ------  ------  -------',
      'scifact     FTS5 BM25             0.687       0.800   0.500',
      'scifact     w 0.75                0.700       0.900   0.632    12.0    25.4     14.0',
      'scifact     w 0.75 + reranking    0.648       0.899   0.610   123.5  1234.5    200.0',
      'warning (scifact): 2 queries were refused',
      '',
    ]);
  });

  test('several collections: each one’s facts, one table, then the mean of every configuration', () => {
    const lines = formatReportTable([scifact, med]).split('\n');
    expect(lines.slice(5, 10)).toEqual([
      'dataset med: /data/med (split test)',
      'documents 1033 (1 cut to the content limit) · queries 30 · topK 100 · input enrichment off',
      'embedder builtin-hash-v2/512 · reranker builtin',
      'index time 4.2 s · vectors fully indexed after 612 ms',
      '',
    ]);
    expect(lines.slice(10)).toEqual([
      'collection  configuration       nDCG@10  Recall@100  MRR@10  p50 ms  p95 ms  mean ms',
      '----------  ------------------  -------  ----------  ------  ------  ------  -------',
      'scifact     FTS5 BM25             0.687       0.800   0.500',
      'scifact     w 0.75                0.700       0.900   0.632    12.0    25.4     14.0',
      'scifact     w 0.75 + reranking    0.648       0.899   0.610   123.5  1234.5    200.0',
      'med         FTS5 BM25             0.700       0.800   0.500',
      'med         w 0.75                0.750       0.900   0.632    12.0    25.4     14.0',
      'med         w 0.75 + reranking    0.760       0.899   0.610   123.5  1234.5    200.0',
      'mean        FTS5 BM25             0.694       0.800   0.500',
      'mean        w 0.75                0.725       0.900   0.632',
      'mean        w 0.75 + reranking    0.704       0.899   0.610',
      'warning (scifact): 2 queries were refused',
      '',
    ]);
  });
});

describe('meanRows and reportJson', () => {
  test('each configuration averaged over the collections, FTS5 first', () => {
    const rows = meanRows([scifact, med]);
    expect(rows.map((row) => [row.configuration, row.semanticWeight, row.reranking])).toEqual([
      ['FTS5 BM25', undefined, undefined],
      ['w 0.75', 0.75, false],
      ['w 0.75 + reranking', 0.75, true],
    ]);
    expect(rows[0].ndcgAt10).toBeCloseTo((0.687 + 0.7) / 2, 10);
    expect(rows[2].ndcgAt10).toBeCloseTo((0.6481 + 0.76) / 2, 10);
  });

  test('a configuration one collection lacks gets no mean row', () => {
    const partial = { ...med, configurations: med.configurations.slice(0, 1) };
    expect(meanRows([scifact, partial]).map((row) => row.configuration)).toEqual(['FTS5 BM25', 'w 0.75']);
  });

  test('--json: the report itself for one collection, {collections, mean} for several', () => {
    expect(reportJson([scifact])).toBe(scifact);
    expect(reportJson([scifact, med])).toEqual({ collections: [scifact, med], mean: meanRows([scifact, med]) });
  });
});
