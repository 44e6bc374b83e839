import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { MAX_TOP_K } from '../../engine/index.js';
import { formatReportTable, reportJson } from '../../eval/evaluation-report.js';
import { RERANKING_MODES, type RerankingMode, runEvaluations } from '../../eval/evaluation-runner.js';
import { DEFAULT_SEMANTIC_WEIGHT } from '../../services/data-plane/data-plane.service.js';
import { configFrom, printJson } from '../cli-support.js';

/**
 * `searchplane eval --dataset <dir>...`: for each BEIR collection in turn, upserts it into a
 * temporary server with the configured engine and models, runs its judged queries per
 * configuration over HTTP, and prints nDCG@10, Recall@100, MRR@10 and latencies with FTS5's BM25
 * beside them, as one table (or JSON with `--json`).
 */
export function evalCommand(): Command {
  return new Command('eval')
    .description(
      'measure search quality on BEIR-layout collections (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) ' +
        'through the HTTP data plane of a temporary server with the embedder and reranker the server is ' +
        'configured with (SEARCHPLANE_EMBEDDINGS_*, SEARCHPLANE_RERANK_*), beside SQLite FTS5 BM25',
    )
    .requiredOption(
      '--dataset <dir>',
      'folder of a collection; repeat the flag or separate folders with commas to evaluate several',
      parseDatasets,
    )
    .option('--split <name>', 'qrels file to evaluate: qrels/<name>.tsv', 'test')
    .option(
      '--semantic-weight <list>',
      `comma-separated semanticWeight values, each 0..1, e.g. 0,0.25,0.5,0.75,1 (default the service's ${DEFAULT_SEMANTIC_WEIGHT})`,
      parseWeights,
    )
    .option('--reranking <mode>', 'off, on, or both (every weight with and without)', parseReranking, 'off')
    .option(
      '--top-k <n>',
      'results per query (Recall@100 needs at least 100)',
      (raw) => parseInteger(raw, '--top-k', 1, MAX_TOP_K),
      100,
    )
    .addOption(
      new Option(
        '--input-enrichment <mode>',
        'on or off: send inputEnrichment with every search; off measures the ranking without the ' +
          'enricher’s rewrite of the query (default: not sent, so the index’s setting applies, on, as for ' +
          'an SDK client that sends only {query, topK})',
      ).argParser(parseOnOff),
    )
    .option('--queries <n>', 'evaluate only the first n judged queries (quick runs)', (raw) =>
      parseInteger(raw, '--queries', 1, Number.MAX_SAFE_INTEGER),
    )
    .option(
      '--vector-timeout <seconds>',
      'fail if vectors are still pending this long after indexing',
      (raw) => parseInteger(raw, '--vector-timeout', 1, 86_400),
      600,
    )
    .option(
      '--json',
      'print JSON instead of the table: the report of one collection, or {collections, mean} for several',
    )
    .action(async (flags) => {
      const config = configFrom({});
      const reports = await runEvaluations(
        (flags.dataset as string[]).map((dir) => resolve(dir)),
        {
          split: flags.split,
          semanticWeights: flags.semanticWeight ?? [DEFAULT_SEMANTIC_WEIGHT],
          reranking: [...RERANKING_MODES[flags.reranking as RerankingMode]],
          topK: flags.topK,
          inputEnrichment: flags.inputEnrichment,
          queryLimit: flags.queries,
          vectorTimeoutMs: flags.vectorTimeout * 1000,
        },
        config,
        (line: string) => process.stderr.write(`searchplane eval: ${line}\n`),
      );
      if (flags.json) printJson(reportJson(reports));
      else process.stdout.write(formatReportTable(reports));
    });
}

function parseDatasets(raw: string, previous: string[] | undefined): string[] {
  const dirs = raw.split(',').map((part) => part.trim());
  if (dirs.some((dir) => dir === '')) throw new InvalidArgumentError('expected folders separated by commas');
  return [...(previous ?? []), ...dirs];
}

function parseWeights(raw: string): number[] {
  const weights = raw.split(',').map((part) => part.trim());
  const values = weights.map(Number);
  if (weights.some((part) => part === '') || values.some((value) => !(value >= 0 && value <= 1))) {
    throw new InvalidArgumentError('expected comma-separated numbers from 0 to 1, e.g. 0,0.5,1');
  }
  return [...new Set(values)];
}

function parseReranking(raw: string): string {
  if (!(raw in RERANKING_MODES)) throw new InvalidArgumentError('expected off, on or both');
  return raw;
}

function parseOnOff(raw: string): boolean {
  if (raw !== 'on' && raw !== 'off') throw new InvalidArgumentError('expected on or off');
  return raw === 'on';
}

function parseInteger(raw: string, name: string, min: number, max: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}
