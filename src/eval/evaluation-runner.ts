import { basename } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.js';
import { DOCUMENT_LIMITS, type EngineLogger } from '../engine/index.js';
import { type BeirDataset, type BeirDocument, type BeirQuery, readBeirDataset } from './beir-dataset.js';
import { type DataPlaneClient, RefusedRequestError } from './data-plane-client.js';
import type { ConfigurationResult, EvaluationReport } from './evaluation-report.js';
import { fts5Baseline } from './fts5-baseline.js';
import { mean, meanMetrics, percentile, type QueryMetrics, queryMetrics, type ScoredHit } from './metrics.js';
import { startTemporaryServer } from './temporary-server.js';

/** `--reranking off|on|both`: the reranking settings each semantic weight is run with. */
export const RERANKING_MODES = { off: [false], on: [true], both: [false, true] } as const;
export type RerankingMode = keyof typeof RERANKING_MODES;

/** What to run on each collection: every semantic weight × every reranking setting, each over all queries. */
export interface EvaluationPlan {
  split: string;
  semanticWeights: number[];
  reranking: boolean[];
  topK: number;
  /** Sent with every search when set; left out otherwise, so the index's setting (on) applies. */
  inputEnrichment?: boolean;
  /** Evaluate only the first n queries that have qrels. */
  queryLimit?: number;
  /** Give up when vectors are still pending this long after the last upsert. */
  vectorTimeoutMs: number;
}

/** Upsert batch size: the size an SDK client would typically send, well under the request limit. */
const UPSERT_BATCH = 100;
const VECTOR_POLL_MS = 100;

/** {@link runEvaluation} on each collection in turn, each with a server of its own. */
export async function runEvaluations(
  datasetDirs: readonly string[],
  plan: EvaluationPlan,
  config: Config,
  progress: (line: string) => void,
): Promise<EvaluationReport[]> {
  const reports: EvaluationReport[] = [];
  for (const dir of datasetDirs) reports.push(await runEvaluation(dir, plan, config, progress));
  return reports;
}

/**
 * Reads a BEIR collection, starts a temporary server with the configured engine and models (from
 * `config`), upserts the collection through its data plane, waits for the vectors, runs every
 * query once per configuration over HTTP and returns the metrics, with FTS5's BM25 on the same
 * collection beside them. `progress` receives one line per step (for stderr). The temp dir is
 * removed at the end, also when the run fails or is interrupted.
 */
export async function runEvaluation(
  datasetDir: string,
  plan: EvaluationPlan,
  config: Config,
  progress: (line: string) => void,
): Promise<EvaluationReport> {
  progress(`reading ${datasetDir}`);
  const dataset = await readBeirDataset(datasetDir, plan.split);
  const queries = dataset.queries.slice(0, plan.queryLimit ?? dataset.queries.length);
  if (queries.length === 0) throw new Error(`no query in ${datasetDir} has qrels for split '${plan.split}'`);
  const warnings = [...dataset.warnings];
  const fts5 = fts5Baseline(dataset.documents, queries, plan.topK);
  progress(`FTS5 BM25: nDCG@10 ${fts5.ndcgAt10.toFixed(3)}`);
  const server = await startTemporaryServer(config, stderrLogger(progress));
  try {
    progress(`indexing ${dataset.documents.length} documents into ${server.dir}`);
    const indexing = await indexDocuments(server.client, dataset, plan.vectorTimeoutMs, progress);
    const configurations: ConfigurationResult[] = [];
    const refused = new Map<string, string>();
    // One unmeasured search first, so JIT warm-up and lazy loading do not land in the latencies.
    await search(server.client, queries[0].text, plan, plan.semanticWeights[0], plan.reranking[0]).catch(() => {});
    for (const semanticWeight of plan.semanticWeights) {
      for (const reranking of plan.reranking) {
        const result = await runConfiguration(server.client, queries, plan, semanticWeight, reranking, refused);
        configurations.push(result);
        progress(
          `semanticWeight ${semanticWeight} reranking ${reranking ? 'on' : 'off'}: nDCG@10 ${result.ndcgAt10.toFixed(3)}`,
        );
      }
    }
    if (refused.size > 0) {
      const [id, message] = [...refused][0];
      const count = refused.size === 1 ? '1 query was' : `${refused.size} queries were`;
      warnings.push(
        `${count} refused by the server (400) and count${refused.size === 1 ? 's' : ''} as 0 (e.g. '${id}': ${message})`,
      );
    }
    return {
      dataset: {
        name: basename(datasetDir),
        path: datasetDir,
        split: plan.split,
        documents: dataset.documents.length,
        queries: queries.length,
        truncatedDocuments: indexing.truncatedDocuments,
      },
      embedder: server.embedderName,
      reranker: config.rerank.url ? 'http' : 'builtin',
      topK: plan.topK,
      inputEnrichment: plan.inputEnrichment ?? null,
      indexing: { indexMs: indexing.indexMs, vectorsReadyMs: indexing.vectorsReadyMs },
      configurations,
      fts5,
      warnings,
    };
  } finally {
    await server.close();
  }
}

/** Every query once, one at a time; `refused` collects the queries the server rejected as invalid. */
async function runConfiguration(
  client: DataPlaneClient,
  queries: readonly BeirQuery[],
  plan: EvaluationPlan,
  semanticWeight: number,
  reranking: boolean,
  refused: Map<string, string>,
): Promise<ConfigurationResult> {
  const perQuery: QueryMetrics[] = [];
  const latencies: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    let hits: ScoredHit[] = [];
    try {
      hits = await search(client, query.text, plan, semanticWeight, reranking);
    } catch (error) {
      // A query the server refuses (e.g. only whitespace) scores 0, like an empty answer.
      if (!(error instanceof RefusedRequestError)) {
        throw new Error(`query '${query.id}' failed: ${(error as Error).message}`, { cause: error });
      }
      refused.set(query.id, error.message);
    }
    latencies.push(performance.now() - started);
    perQuery.push(queryMetrics(hits, query.judgments));
  }
  return {
    semanticWeight,
    reranking,
    ...meanMetrics(perQuery),
    latencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), mean: mean(latencies) },
  };
}

function search(
  client: DataPlaneClient,
  query: string,
  plan: EvaluationPlan,
  semanticWeight: number,
  reranking: boolean,
): Promise<ScoredHit[]> {
  return client.call<ScoredHit[]>('search', {
    query,
    topK: plan.topK,
    includeData: false,
    includeMetadata: false,
    semanticWeight,
    reranking,
    ...(plan.inputEnrichment === undefined ? {} : { inputEnrichment: plan.inputEnrichment }),
  });
}

async function indexDocuments(
  client: DataPlaneClient,
  dataset: BeirDataset,
  vectorTimeoutMs: number,
  progress: (line: string) => void,
): Promise<{ indexMs: number; vectorsReadyMs: number; truncatedDocuments: number }> {
  const started = performance.now();
  let truncatedDocuments = 0;
  for (let start = 0; start < dataset.documents.length; start += UPSERT_BATCH) {
    const batch = dataset.documents.slice(start, start + UPSERT_BATCH).map((document) => {
      const { content, truncated } = documentContent(document);
      if (truncated) truncatedDocuments++;
      return { id: document.id, content };
    });
    await client.call('upsert-data', batch);
  }
  const indexMs = performance.now() - started;
  progress(`indexed in ${(indexMs / 1000).toFixed(1)} s; waiting for the vector index`);
  const deadline = performance.now() + vectorTimeoutMs;
  for (;;) {
    const { pendingVectorCount } = await client.call<{ pendingVectorCount: number }>('info', []);
    if (pendingVectorCount === 0) break;
    if (performance.now() > deadline) {
      throw new Error(
        `${pendingVectorCount} vectors still pending ${Math.round(vectorTimeoutMs / 1000)} s after indexing; ` +
          'raise --vector-timeout',
      );
    }
    await sleep(VECTOR_POLL_MS);
  }
  return { indexMs, vectorsReadyMs: performance.now() - started, truncatedDocuments };
}

/**
 * `{title, text}` (title only when non-empty), cut to the engine's content limit: the server
 * refuses longer documents, so a user indexing this collection would have to shorten them too.
 * The limit counts the flattened text, title and text joined by one newline.
 */
export function documentContent(document: BeirDocument): {
  content: { title?: string; text: string };
  truncated: boolean;
} {
  const limit = DOCUMENT_LIMITS.textMaxLength;
  const title = cut(document.title, limit - 1);
  const text = cut(document.text, title ? limit - title.length - 1 : limit);
  const truncated = title !== document.title || text !== document.text;
  return { content: title ? { title, text } : { text }, truncated };
}

/** At most `max` UTF-16 units, at a word boundary when one is near, never inside a surrogate pair. */
function cut(value: string, max: number): string {
  if (value.length <= max) return value;
  let end = max;
  const space = value.lastIndexOf(' ', max);
  if (space > max - 100 && space > 0) end = space;
  else if (end > 0 && /[\uD800-\uDBFF]/.test(value[end - 1])) end--;
  return value.slice(0, end);
}

function stderrLogger(progress: (line: string) => void): EngineLogger {
  const write = (level: string) => (obj: object, msg?: string) =>
    progress(
      `${level}: ${msg ?? ''} ${JSON.stringify(obj, (_key, value) => (value instanceof Error ? value.message : value))}`,
    );
  return { info() {}, warn: write('warn'), error: write('error') };
}
