import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { MAX_TOP_K } from '../../engine/index.js';
import { formatReportTable } from '../../eval/evaluation-report.js';
import { RERANKING_MODES, type RerankingMode, runEvaluation } from '../../eval/evaluation-runner.js';
import { DEFAULT_SEMANTIC_WEIGHT } from '../../services/data-plane/data-plane.service.js';
import { configFrom, printJson } from '../cli-support.js';

/**
 * `searchplane eval --dataset <dir>`: indexes a BEIR collection into a temporary index with the
 * server's engine and models, runs its judged queries per configuration and prints nDCG@10,
 * Recall@100, MRR@10 and latencies as a table (or one JSON object with `--json`).
 */
export function evalCommand(): Command {
  return new Command('eval')
    .description(
      'measure search quality on a BEIR-layout collection (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) ' +
        'with the embedder and reranker the server is configured with (SEARCHPLANE_EMBEDDINGS_*, SEARCHPLANE_RERANK_*)',
    )
    .requiredOption('--dataset <dir>', 'folder of the collection')
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
        'on or off; off by default because enrichment rewrites the query (spelling fixes, expansion) before ' +
          'it is ranked, so the numbers would measure the enricher as much as the ranking; on measures what ' +
          'an index with input enrichment serves by default',
      )
        .argParser(parseOnOff)
        .default(false, 'off'),
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
    .option('--json', 'print one JSON object with every configuration instead of the table')
    .action(async (flags) => {
      const config = configFrom({});
      const report = await runEvaluation(
        {
          datasetDir: resolve(flags.dataset),
          split: flags.split,
          semanticWeights: flags.semanticWeight ?? [DEFAULT_SEMANTIC_WEIGHT],
          reranking: [...RERANKING_MODES[flags.reranking as RerankingMode]],
          topK: flags.topK,
          inputEnrichment: flags.inputEnrichment,
          queryLimit: flags.queries,
          vectorTimeoutMs: flags.vectorTimeout * 1000,
        },
        config,
        (line) => process.stderr.write(`searchplane eval: ${line}\n`),
      );
      if (flags.json) printJson(report);
      else process.stdout.write(formatReportTable(report));
    });
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
