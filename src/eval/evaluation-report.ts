import type { QueryMetrics } from './metrics.js';

/** The metrics of one search configuration over every evaluated query. */
export interface ConfigurationResult extends QueryMetrics {
  semanticWeight: number;
  reranking: boolean;
  /** Wall time of each `search` call on the engine, in milliseconds. */
  latencyMs: { p50: number; p95: number; mean: number };
}

/** What `searchplane eval --json` prints: one object, every configuration's metrics. */
export interface EvaluationReport {
  dataset: {
    path: string;
    split: string;
    documents: number;
    /** Evaluated queries (those with qrels, after `--queries`). */
    queries: number;
    /** Documents whose text was cut to fit the engine's content limit. */
    truncatedDocuments: number;
  };
  embedder: string;
  /** `builtin`, or `http` when SEARCHPLANE_RERANK_URL is set. */
  reranker: 'builtin' | 'http';
  topK: number;
  inputEnrichment: boolean;
  indexing: {
    /** From the first upsert until the last one returned (documents searchable by full text). */
    indexMs: number;
    /** From the first upsert until the index reported no pending vectors. */
    vectorsReadyMs: number;
  };
  configurations: ConfigurationResult[];
  /** Oddities of the collection or the run that did not stop it. */
  warnings: string[];
}

const COLUMNS = ['semantic weight', 'reranking', 'nDCG@10', 'Recall@100', 'MRR@10', 'p50 ms', 'p95 ms', 'mean ms'];

/** The report as a table a person can read: a header of facts, then one row per configuration. */
export function formatReportTable(report: EvaluationReport): string {
  const { dataset, indexing } = report;
  const truncated = dataset.truncatedDocuments > 0 ? ` (${dataset.truncatedDocuments} cut to the content limit)` : '';
  const header = [
    `dataset ${dataset.path} (split ${dataset.split})`,
    `documents ${dataset.documents}${truncated} · queries ${dataset.queries} · topK ${report.topK} · ` +
      `input enrichment ${report.inputEnrichment ? 'on' : 'off'}`,
    `embedder ${report.embedder} · reranker ${report.reranker}`,
    `index time ${duration(indexing.indexMs)} · vectors fully indexed after ${duration(indexing.vectorsReadyMs)}`,
  ];
  const rows = report.configurations.map((result) => [
    result.semanticWeight.toFixed(2),
    result.reranking ? 'on' : 'off',
    result.ndcgAt10.toFixed(3),
    result.recallAt100.toFixed(3),
    result.mrrAt10.toFixed(3),
    result.latencyMs.p50.toFixed(1),
    result.latencyMs.p95.toFixed(1),
    result.latencyMs.mean.toFixed(1),
  ]);
  const widths = COLUMNS.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  // Text columns left-aligned, numbers right-aligned so their decimals line up.
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column < 2 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join('  ')
      .trimEnd();
  const warnings = report.warnings.map((warning) => `warning: ${warning}`);
  return [...header, '', line(COLUMNS), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line), ...warnings]
    .join('\n')
    .concat('\n');
}

function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
