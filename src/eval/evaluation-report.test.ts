import { expect, test } from 'vitest';
import { type EvaluationReport, formatReportTable } from './evaluation-report.js';

const report: EvaluationReport = {
  dataset: { path: '/data/scifact', split: 'test', documents: 5183, queries: 300, truncatedDocuments: 18 },
  embedder: 'builtin-hash-v1/256',
  reranker: 'builtin',
  topK: 100,
  inputEnrichment: false,
  indexing: { indexMs: 4234, vectorsReadyMs: 612 },
  configurations: [
    {
      semanticWeight: 0,
      reranking: false,
      ndcgAt10: 0.67049,
      recallAt100: 0.9,
      mrrAt10: 0.6321,
      latencyMs: { p50: 12.04, p95: 25.36, mean: 14 },
    },
    {
      semanticWeight: 0.75,
      reranking: true,
      ndcgAt10: 0.6481,
      recallAt100: 0.8994,
      mrrAt10: 0.61,
      latencyMs: { p50: 123.45, p95: 1234.5, mean: 200 },
    },
  ],
  warnings: ['2 queries were refused'],
};

test('the table: facts first, one aligned row per configuration, three decimals, then warnings', () => {
  const lines = formatReportTable(report).split('\n');
  expect(lines.slice(0, 5)).toEqual([
    'dataset /data/scifact (split test)',
    'documents 5183 (18 cut to the content limit) · queries 300 · topK 100 · input enrichment off',
    'embedder builtin-hash-v1/256 · reranker builtin',
    'index time 4.2 s · vectors fully indexed after 612 ms',
    '',
  ]);
  expect(lines.slice(5)).toEqual([
    'semantic weight  reranking  nDCG@10  Recall@100  MRR@10  p50 ms  p95 ms  mean ms',
    '---------------  ---------  -------  ----------  ------  ------  ------  -------',
    '0.00             off          0.670       0.900   0.632    12.0    25.4     14.0',
    '0.75             on           0.648       0.899   0.610   123.5  1234.5    200.0',
    'warning: 2 queries were refused',
    '',
  ]);
});
