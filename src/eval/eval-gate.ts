import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../config.js';
import { type ConfigurationResult, type EvaluationReport, formatReportTable } from './evaluation-report.js';
import { RERANKING_MODES, type RerankingMode, runEvaluations } from './evaluation-runner.js';
import { mean } from './metrics.js';

/** `eval/targets.json`: what the gate runs, and the nDCG@10 it must reach. */
export interface GateTargets {
  /** Collection names, each a folder looked up by {@link datasetCandidates}. */
  datasets: string[];
  /** The evaluation to run on each: these weights × these reranking settings. */
  semanticWeights: number[];
  reranking: RerankingMode;
  topK: number;
  /** The weight of the default request (the service's default `semanticWeight`). */
  defaultWeight: number;
  /** How far below its bound a value may be and still pass: differences this small are noise. */
  tolerance: number;
  /** The default request's mean over the collections must beat FTS5's mean by this much. */
  meanAboveFts5: number;
  /** Collection name → the least nDCG@10 of the default request there. */
  minimums: Record<string, number>;
}

const DATASET_NAME = /^[A-Za-z0-9_-]+$/;

/** Parses and checks a targets file's JSON; throws an Error listing every problem. */
export function parseTargets(json: unknown, file: string): GateTargets {
  const problems: string[] = [];
  const raw = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const isWeight = (value: unknown): value is number => typeof value === 'number' && value >= 0 && value <= 1;
  const datasets = Array.isArray(raw.datasets) ? raw.datasets : [];
  if (datasets.length === 0 || !datasets.every((name) => typeof name === 'string' && DATASET_NAME.test(name))) {
    problems.push('datasets must be a non-empty array of folder names (letters, digits, - and _)');
  } else if (new Set(datasets).size !== datasets.length) {
    problems.push('datasets must not name a collection twice');
  }
  const semanticWeights = Array.isArray(raw.semanticWeights) ? raw.semanticWeights : [];
  if (semanticWeights.length === 0 || !semanticWeights.every(isWeight)) {
    problems.push('semanticWeights must be a non-empty array of numbers from 0 to 1');
  } else if (!semanticWeights.includes(0)) {
    problems.push('semanticWeights must include 0: the default request is compared with full text alone');
  }
  const reranking = raw.reranking as RerankingMode;
  if (reranking !== 'both')
    problems.push('reranking must be "both": reranking is compared with the same request without it');
  const topK = raw.topK;
  if (!(typeof topK === 'number' && Number.isInteger(topK) && topK >= 1))
    problems.push('topK must be a positive integer');
  const defaultWeight = raw.defaultWeight;
  if (!isWeight(defaultWeight)) problems.push('defaultWeight must be a number from 0 to 1');
  else if (!semanticWeights.includes(defaultWeight)) problems.push('defaultWeight must be one of semanticWeights');
  const tolerance = raw.tolerance;
  if (!(typeof tolerance === 'number' && tolerance >= 0 && tolerance < 1)) {
    problems.push('tolerance must be a number from 0 to below 1');
  }
  const meanAboveFts5 = raw.meanAboveFts5;
  if (!(typeof meanAboveFts5 === 'number' && meanAboveFts5 > -1 && meanAboveFts5 < 1)) {
    problems.push('meanAboveFts5 must be a number between -1 and 1');
  }
  const minimums = raw.minimums ?? {};
  if (typeof minimums !== 'object' || minimums === null || Array.isArray(minimums)) {
    problems.push('minimums must be an object of collection name → nDCG@10');
  } else {
    for (const [name, min] of Object.entries(minimums)) {
      if (!datasets.includes(name)) problems.push(`minimums.${name} names a collection not in datasets`);
      if (!isWeight(min)) problems.push(`minimums.${name} must be a number from 0 to 1`);
    }
  }
  if (problems.length > 0) throw new Error(`${file}:\n  - ${problems.join('\n  - ')}`);
  return {
    datasets: datasets as string[],
    semanticWeights: semanticWeights as number[],
    reranking,
    topK: topK as number,
    defaultWeight: defaultWeight as number,
    tolerance: tolerance as number,
    meanAboveFts5: meanAboveFts5 as number,
    minimums: minimums as Record<string, number>,
  };
}

/** One check of the gate: its line as printed, and whether it passed. */
export interface GateCheck {
  passed: boolean;
  line: string;
}

/**
 * Every target checked on nDCG@10 against the reports (one per collection of `targets.datasets`,
 * found by `dataset.name`), in this order: per collection, the default request against the best
 * of FTS5 and full text alone, then reranking against the default; the mean of the default
 * against FTS5's; each minimum.
 */
export function checkTargets(reports: readonly EvaluationReport[], targets: GateTargets): GateCheck[] {
  const checks: GateCheck[] = [];
  const judge = (subject: string, value: number, bound: number, boundText: string) => {
    const passed = value >= bound;
    const verdict = passed ? 'PASS' : 'FAIL';
    checks.push({
      passed,
      line: `${verdict} ${subject} ${f(value)} ${passed ? '>=' : '<'} ${f(bound)} = ${boundText}`,
    });
  };
  const reportOf = (name: string) => {
    const found = reports.find((report) => report.dataset.name === name);
    if (!found) throw new Error(`the evaluation has no result for the collection ${name}`);
    return found;
  };
  const defaults: number[] = [];
  const fts5: number[] = [];
  const tolerance = targets.tolerance;
  for (const name of targets.datasets) {
    const report = reportOf(name);
    const standard = resultOf(report, targets.defaultWeight, false).ndcgAt10;
    const fullText = resultOf(report, 0, false).ndcgAt10;
    const reranked = resultOf(report, targets.defaultWeight, true).ndcgAt10;
    defaults.push(standard);
    fts5.push(report.fts5.ndcgAt10);
    judge(
      `${name}: default nDCG@10`,
      standard,
      Math.max(report.fts5.ndcgAt10, fullText) - tolerance,
      `max(FTS5 ${f(report.fts5.ndcgAt10)}, w 0 ${f(fullText)}) - ${tolerance}`,
    );
    judge(
      `${name}: default + reranking nDCG@10`,
      reranked,
      standard - tolerance,
      `default ${f(standard)} - ${tolerance}`,
    );
  }
  const [meanDefault, meanFts5] = [mean(defaults), mean(fts5)];
  judge(
    `mean of ${targets.datasets.length}: default nDCG@10`,
    meanDefault,
    meanFts5 + targets.meanAboveFts5,
    `FTS5 ${f(meanFts5)} + ${targets.meanAboveFts5}`,
  );
  for (const [name, min] of Object.entries(targets.minimums)) {
    const value = resultOf(reportOf(name), targets.defaultWeight, false).ndcgAt10;
    judge(`${name}: default nDCG@10`, value, min, 'minimum');
  }
  return checks;
}

function resultOf(report: EvaluationReport, semanticWeight: number, reranking: boolean): ConfigurationResult {
  const found = report.configurations.find((c) => c.semanticWeight === semanticWeight && c.reranking === reranking);
  if (!found) {
    throw new Error(
      `the evaluation of ${report.dataset.name} has no result for semanticWeight ${semanticWeight}, reranking ${reranking}`,
    );
  }
  return found;
}

function f(value: number): string {
  return value.toFixed(4);
}

/**
 * Where the gate looks for a collection: under SEARCHPLANE_EVAL_DATASETS alone when set, else
 * beside the repository, else /work/shared.
 */
export function datasetCandidates(name: string, repoRoot: string, env: NodeJS.ProcessEnv): string[] {
  const chosen = env.SEARCHPLANE_EVAL_DATASETS;
  if (chosen) return [join(chosen, name)];
  return [join(repoRoot, '..', 'shared', 'datasets', name), join('/work/shared/datasets', name)];
}

export interface GateOptions {
  repoRoot: string;
  targetsFile: string;
  /** The process environment: dataset location, and the server configuration the evaluation uses. */
  env: NodeJS.ProcessEnv;
  out: (text: string) => void;
  progress: (line: string) => void;
}

/**
 * The CI relevance gate: runs the evaluation the targets file asks for on each of its collections,
 * prints the full table, one line per check, then `eval gate PASSED: …` (0) or `eval gate FAILED:
 * …` (1). When no collection is there at all it prints `eval gate SKIPPED: …` (0: CI must not fail
 * only because the datasets, which are not shipped with the repository, are absent); when only
 * some are, it fails, since the targets hold for the whole set. Resolves to the exit code.
 */
export async function runGate(options: GateOptions): Promise<number> {
  const targets = parseTargets(JSON.parse(readFileSync(options.targetsFile, 'utf8')), options.targetsFile);
  const rule = '='.repeat(72);
  const located = targets.datasets.map((name) => {
    const candidates = datasetCandidates(name, options.repoRoot, options.env);
    return { name, candidates, dir: candidates.find((dir) => existsSync(join(dir, 'corpus.jsonl'))) };
  });
  const missing = located.filter((dataset) => dataset.dir === undefined);
  if (missing.length === located.length) {
    const where = located.map((dataset) => dataset.candidates.join(' or ')).join('; ');
    options.out(
      `${rule}\neval gate SKIPPED: no dataset at ${where} (set SEARCHPLANE_EVAL_DATASETS to their folder)\n${rule}\n`,
    );
    return 0;
  }
  if (missing.length > 0) {
    const where = missing.map((dataset) => `${dataset.name} (${dataset.candidates.join(' or ')})`).join('; ');
    options.out(`eval gate FAILED: missing datasets: ${where}\n`);
    return 1;
  }
  const reports = await runEvaluations(
    located.map((dataset) => dataset.dir as string),
    {
      split: 'test',
      semanticWeights: targets.semanticWeights,
      reranking: [...RERANKING_MODES[targets.reranking]],
      topK: targets.topK,
      vectorTimeoutMs: 600_000,
    },
    loadConfig({}, options.env),
    options.progress,
  );
  options.out(formatReportTable(reports));
  const checks = checkTargets(reports, targets);
  const failed = checks.filter((check) => !check.passed);
  options.out(`\n${checks.map((check) => check.line).join('\n')}\n`);
  options.out(
    failed.length > 0
      ? `eval gate FAILED: ${failed.length} of ${checks.length} checks\n`
      : `eval gate PASSED: all ${checks.length} checks\n`,
  );
  return failed.length > 0 ? 1 : 0;
}
