import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../config.js';
import { type EvaluationReport, formatReportTable } from './evaluation-report.js';
import { RERANKING_MODES, type RerankingMode, runEvaluation } from './evaluation-runner.js';

export const METRICS = { ndcgAt10: 'nDCG@10', recallAt100: 'Recall@100', mrrAt10: 'MRR@10' } as const;
export type MetricName = keyof typeof METRICS;

/** A configuration's metric must reach `min`. */
export interface MinimumTarget {
  /** How the gate line names it, e.g. "default request". */
  name: string;
  semanticWeight: number;
  reranking: boolean;
  metric: MetricName;
  min: number;
}

/** With reranking, `metric` must be at least what the same request scores without it. */
export interface RerankingTarget {
  semanticWeight: number;
  metric: MetricName;
}

/** `eval/targets.json`: what the gate runs, and what it must reach. */
export interface GateTargets {
  /** The evaluation to run: these weights × these reranking settings. */
  semanticWeights: number[];
  reranking: RerankingMode;
  topK: number;
  minimums: MinimumTarget[];
  rerankingNotWorse: RerankingTarget[];
}

/** Parses and checks a targets file's JSON; throws an Error listing every problem. */
export function parseTargets(json: unknown, file: string): GateTargets {
  const problems: string[] = [];
  const raw = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const isWeight = (value: unknown): value is number => typeof value === 'number' && value >= 0 && value <= 1;
  const isMetric = (value: unknown): value is MetricName => typeof value === 'string' && value in METRICS;
  const semanticWeights = Array.isArray(raw.semanticWeights) ? raw.semanticWeights : [];
  if (semanticWeights.length === 0 || !semanticWeights.every(isWeight)) {
    problems.push('semanticWeights must be a non-empty array of numbers from 0 to 1');
  }
  const reranking = raw.reranking as RerankingMode;
  if (!(typeof reranking === 'string' && reranking in RERANKING_MODES))
    problems.push('reranking must be off, on or both');
  const topK = raw.topK;
  if (!(typeof topK === 'number' && Number.isInteger(topK) && topK >= 1))
    problems.push('topK must be a positive integer');
  const runs = (weight: number, withReranking: boolean) =>
    semanticWeights.includes(weight) &&
    (RERANKING_MODES[reranking] as readonly boolean[] | undefined)?.includes(withReranking);

  const minimums = (Array.isArray(raw.minimums) ? raw.minimums : []) as MinimumTarget[];
  minimums.forEach((target, i) => {
    const at = `minimums[${i}]`;
    if (typeof target?.name !== 'string') problems.push(`${at}.name must be a string`);
    if (!isMetric(target?.metric)) problems.push(`${at}.metric must be one of ${Object.keys(METRICS).join(', ')}`);
    if (!(typeof target?.min === 'number' && target.min >= 0 && target.min <= 1)) {
      problems.push(`${at}.min must be a number from 0 to 1`);
    }
    if (!isWeight(target?.semanticWeight) || typeof target?.reranking !== 'boolean') {
      problems.push(`${at} needs semanticWeight (0..1) and reranking (true or false)`);
    } else if (!runs(target.semanticWeight, target.reranking)) {
      problems.push(`${at} names a configuration the gate does not run (see semanticWeights and reranking)`);
    }
  });
  const rerankingNotWorse = (Array.isArray(raw.rerankingNotWorse) ? raw.rerankingNotWorse : []) as RerankingTarget[];
  rerankingNotWorse.forEach((target, i) => {
    const at = `rerankingNotWorse[${i}]`;
    if (!isMetric(target?.metric)) problems.push(`${at}.metric must be one of ${Object.keys(METRICS).join(', ')}`);
    if (!isWeight(target?.semanticWeight)) problems.push(`${at}.semanticWeight must be a number from 0 to 1`);
    else if (!runs(target.semanticWeight, true) || !runs(target.semanticWeight, false)) {
      problems.push(`${at} needs that weight run with and without reranking (reranking: "both")`);
    }
  });
  if (problems.length > 0) throw new Error(`${file}:\n  - ${problems.join('\n  - ')}`);
  return { semanticWeights: semanticWeights as number[], reranking, topK: topK as number, minimums, rerankingNotWorse };
}

/** Every target checked against a report: the misses, and a description of each check. */
export function checkTargets(report: EvaluationReport, targets: GateTargets): { misses: string[]; checks: string[] } {
  const misses: string[] = [];
  const checks: string[] = [];
  const result = (weight: number, reranking: boolean) => {
    const found = report.configurations.find((c) => c.semanticWeight === weight && c.reranking === reranking);
    if (!found) throw new Error(`the evaluation has no result for semanticWeight ${weight}, reranking ${reranking}`);
    return found;
  };
  const judge = (passed: boolean, label: string, value: number, bound: number, suffix = '') => {
    const text = `${label} ${value.toFixed(4)} ${passed ? '>=' : '<'} ${bound.toFixed(4)}${suffix}`;
    checks.push(text);
    if (!passed) misses.push(text);
  };
  for (const target of targets.minimums) {
    const value = result(target.semanticWeight, target.reranking)[target.metric];
    const configuration = `semanticWeight ${target.semanticWeight}${target.reranking ? ', reranking' : ''}`;
    judge(value >= target.min, `${target.name} (${configuration}) ${METRICS[target.metric]}`, value, target.min);
  }
  for (const target of targets.rerankingNotWorse) {
    const withIt = result(target.semanticWeight, true)[target.metric];
    const without = result(target.semanticWeight, false)[target.metric];
    const label = `reranking (semanticWeight ${target.semanticWeight}) ${METRICS[target.metric]}`;
    judge(withIt >= without, label, withIt, without, ' without it');
  }
  return { misses, checks };
}

/** Where the gate looks for SciFact: the variable alone when set, else beside the repository, else /work/shared. */
export function datasetCandidates(repoRoot: string, env: NodeJS.ProcessEnv): string[] {
  const chosen = env.SEARCHPLANE_EVAL_DATASET;
  if (chosen) return [chosen];
  return [join(repoRoot, '..', 'shared', 'datasets', 'scifact'), '/work/shared/datasets/scifact'];
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
 * The CI relevance gate: runs the evaluation the targets file asks for, prints the full table,
 * then one line — `eval gate PASSED: …` (0), `eval gate FAILED: <every miss>` (1) or, when no
 * dataset is there, `eval gate SKIPPED: …` (0: CI must not fail only because the dataset, which
 * may not be shipped with the repository, is absent). Resolves to the exit code.
 */
export async function runGate(options: GateOptions): Promise<number> {
  const targets = parseTargets(JSON.parse(readFileSync(options.targetsFile, 'utf8')), options.targetsFile);
  const candidates = datasetCandidates(options.repoRoot, options.env);
  const datasetDir = candidates.find((dir) => existsSync(join(dir, 'corpus.jsonl')));
  if (!datasetDir) {
    const rule = '='.repeat(72);
    options.out(
      `${rule}\neval gate SKIPPED: no dataset at ${candidates.join(' or ')} (set SEARCHPLANE_EVAL_DATASET)\n${rule}\n`,
    );
    return 0;
  }
  const report = await runEvaluation(
    {
      datasetDir,
      split: 'test',
      semanticWeights: targets.semanticWeights,
      reranking: [...RERANKING_MODES[targets.reranking]],
      topK: targets.topK,
      inputEnrichment: false,
      vectorTimeoutMs: 600_000,
    },
    loadConfig({}, options.env),
    options.progress,
  );
  options.out(formatReportTable(report));
  const { misses, checks } = checkTargets(report, targets);
  options.out(
    misses.length > 0 ? `eval gate FAILED: ${misses.join('; ')}\n` : `eval gate PASSED: ${checks.join('; ')}\n`,
  );
  return misses.length > 0 ? 1 : 0;
}
