import { meanMetrics, type QueryMetrics } from './metrics.js';

/** The metrics of one search configuration over every evaluated query. */
export interface ConfigurationResult extends QueryMetrics {
  semanticWeight: number;
  reranking: boolean;
  /** Wall time of each search request over HTTP (sent to answer parsed), in milliseconds. */
  latencyMs: { p50: number; p95: number; mean: number };
}

/** What `searchplane eval --json` prints for one collection: every configuration's metrics. */
export interface EvaluationReport {
  dataset: {
    /** The folder's name, which names the collection in the table. */
    name: string;
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
  /** What each search sent as `inputEnrichment`; null when it sent none (the index's setting, on). */
  inputEnrichment: boolean | null;
  indexing: {
    /** From the first upsert until the last one returned (documents searchable by full text). */
    indexMs: number;
    /** From the first upsert until the index reported no pending vectors. */
    vectorsReadyMs: number;
  };
  configurations: ConfigurationResult[];
  /** SQLite FTS5's plain BM25 on the same documents and queries, as a reference. */
  fts5: QueryMetrics;
  /** Oddities of the collection or the run that did not stop it. */
  warnings: string[];
}

/** One configuration's metrics averaged over the collections (each collection weighs the same). */
export interface MeanRow extends QueryMetrics {
  /** `FTS5 BM25`, or the configuration's label, e.g. `w 0.75 + reranking`. */
  configuration: string;
  /** Absent on the FTS5 row. */
  semanticWeight?: number;
  reranking?: boolean;
}

export const FTS5_LABEL = 'FTS5 BM25';

/** How the table names a configuration: `w 0.75`, `w 0.75 + reranking`. */
export function configurationLabel(result: Pick<ConfigurationResult, 'semanticWeight' | 'reranking'>): string {
  return `w ${result.semanticWeight}${result.reranking ? ' + reranking' : ''}`;
}

/**
 * FTS5 and every configuration of the first report, each averaged over the reports; a
 * configuration some report lacks has no row, as its mean would compare different collections.
 */
export function meanRows(reports: readonly EvaluationReport[]): MeanRow[] {
  if (reports.length === 0) return [];
  const rows: MeanRow[] = [{ configuration: FTS5_LABEL, ...meanMetrics(reports.map((report) => report.fts5)) }];
  for (const { semanticWeight, reranking } of reports[0].configurations) {
    const found = reports.map((report) =>
      report.configurations.find((c) => c.semanticWeight === semanticWeight && c.reranking === reranking),
    );
    if (found.some((result) => result === undefined)) continue;
    const configuration = configurationLabel({ semanticWeight, reranking });
    rows.push({ configuration, semanticWeight, reranking, ...meanMetrics(found as ConfigurationResult[]) });
  }
  return rows;
}

/** `--json`: one collection's report as it is; several as `{collections, mean}`. */
export function reportJson(reports: readonly EvaluationReport[]): unknown {
  return reports.length === 1 ? reports[0] : { collections: reports, mean: meanRows(reports) };
}

const COLUMNS = ['collection', 'configuration', 'nDCG@10', 'Recall@100', 'MRR@10', 'p50 ms', 'p95 ms', 'mean ms'];
const TEXT_COLUMNS = 2;

/**
 * The reports as a person reads them: each collection's facts, then one table of every
 * (collection, configuration) with FTS5 first, then — for several collections — the mean of each
 * configuration over them, then the warnings.
 */
export function formatReportTable(reports: readonly EvaluationReport[]): string {
  const headers = reports.flatMap((report) => [...reportHeader(report), '']);
  const metrics = (m: QueryMetrics) => [m.ndcgAt10.toFixed(3), m.recallAt100.toFixed(3), m.mrrAt10.toFixed(3)];
  const rows: string[][] = [];
  for (const report of reports) {
    const name = report.dataset.name;
    rows.push([name, FTS5_LABEL, ...metrics(report.fts5), '', '', '']);
    for (const result of report.configurations) {
      const { p50, p95, mean: average } = result.latencyMs;
      rows.push([
        name,
        configurationLabel(result),
        ...metrics(result),
        ...[p50, p95, average].map((ms) => ms.toFixed(1)),
      ]);
    }
  }
  if (reports.length > 1) {
    for (const row of meanRows(reports)) rows.push(['mean', row.configuration, ...metrics(row), '', '', '']);
  }
  const widths = COLUMNS.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  // Text columns left-aligned, numbers right-aligned so their decimals line up.
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column < TEXT_COLUMNS ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join('  ')
      .trimEnd();
  const warnings = reports.flatMap((report) =>
    report.warnings.map((warning) => `warning (${report.dataset.name}): ${warning}`),
  );
  return [...headers, line(COLUMNS), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line), ...warnings]
    .join('\n')
    .concat('\n');
}

function reportHeader(report: EvaluationReport): string[] {
  const { dataset, indexing } = report;
  const truncated = dataset.truncatedDocuments > 0 ? ` (${dataset.truncatedDocuments} cut to the content limit)` : '';
  const enrichment =
    report.inputEnrichment === null ? 'not sent (the index’s setting: on)' : report.inputEnrichment ? 'on' : 'off';
  return [
    `dataset ${dataset.name}: ${dataset.path} (split ${dataset.split})`,
    `documents ${dataset.documents}${truncated} · queries ${dataset.queries} · topK ${report.topK} · ` +
      `input enrichment ${enrichment}`,
    `embedder ${report.embedder} · reranker ${report.reranker}`,
    `index time ${duration(indexing.indexMs)} · vectors fully indexed after ${duration(indexing.vectorsReadyMs)}`,
  ];
}

function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
