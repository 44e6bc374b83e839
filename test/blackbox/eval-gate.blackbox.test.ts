import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { writeBeirCollection } from '../helpers/beir-collection.js';

const GATE = fileURLToPath(new URL('../../eval/gate.js', import.meta.url));

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'eval-gate-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** Runs `node eval/gate.js [targets]` with only PATH and the given variables. */
function gate(env: Record<string, string>, targetsFile?: string): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [GATE, ...(targetsFile ? [targetsFile] : [])], {
    env: { PATH: process.env.PATH, TMPDIR: work, ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout })));
}

function targets(min: number): string {
  const file = join(work, `targets-${min}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      semanticWeights: [0, 0.75],
      reranking: 'both',
      topK: 100,
      minimums: [{ name: 'default request', semanticWeight: 0.75, reranking: false, metric: 'ndcgAt10', min }],
      rerankingNotWorse: [],
    }),
  );
  return file;
}

test('no dataset: a prominent SKIPPED line naming where it looked, and exit 0', async () => {
  const missing = join(work, 'no-such-collection');
  const run = await gate({ SEARCHPLANE_EVAL_DATASET: missing });
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(`eval gate SKIPPED: no dataset at ${missing}`);
});

test('the full table first, then one PASSED line; a missed target is one FAILED line and exit 1', async () => {
  const dataset = join(work, 'collection');
  writeBeirCollection(dataset);

  const passed = await gate({ SEARCHPLANE_EVAL_DATASET: dataset }, targets(0.5));
  expect(passed.code, passed.stdout).toBe(0);
  const lines = passed.stdout.trimEnd().split('\n');
  const rows = lines.filter((line) => /^\d\.\d\d\s+(on|off)\s/.test(line));
  expect(rows.map((row) => row.split(/\s+/).slice(0, 2).join(' '))).toEqual([
    '0.00 off',
    '0.00 on',
    '0.75 off',
    '0.75 on',
  ]);
  expect(lines.at(-1)).toMatch(
    /^eval gate PASSED: default request \(semanticWeight 0\.75\) nDCG@10 \d\.\d{4} >= 0\.5000$/,
  );

  const failed = await gate({ SEARCHPLANE_EVAL_DATASET: dataset }, targets(0.99));
  expect(failed.code).toBe(1);
  expect(failed.stdout.trimEnd().split('\n').at(-1)).toMatch(
    /^eval gate FAILED: default request \(semanticWeight 0\.75\) nDCG@10 \d\.\d{4} < 0\.9900$/,
  );
});

test('a malformed targets file fails with every problem listed', async () => {
  const file = join(work, 'bad.json');
  writeFileSync(file, JSON.stringify({ semanticWeights: [], reranking: 'maybe', topK: 100 }));
  const run = await gate({ SEARCHPLANE_EVAL_DATASET: join(work, 'none') }, file);
  expect(run.code).toBe(1);
  expect(run.stdout).toMatch(/^eval gate ERROR: .*bad\.json:\n {2}- semanticWeights.*\n {2}- reranking/);
});
