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

/** Targets on the generated collections `one` and `two`, loose enough to pass unless `min` is not. */
function targets(min: number): string {
  const file = join(work, `targets-${min}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      datasets: ['one', 'two'],
      semanticWeights: [0, 0.75],
      reranking: 'both',
      topK: 100,
      defaultWeight: 0.75,
      tolerance: 0.99,
      meanAboveFts5: -0.99,
      minimums: { one: min },
    }),
  );
  return file;
}

test('no dataset: a prominent SKIPPED line naming where it looked, and exit 0', async () => {
  const missing = join(work, 'no-such-folder');
  const run = await gate({ SEARCHPLANE_EVAL_DATASETS: missing }, targets(0.5));
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(`eval gate SKIPPED: no dataset at ${join(missing, 'one')}`);
});

test('some datasets missing: FAILED naming them, exit 1', async () => {
  writeBeirCollection(join(work, 'one'));
  const run = await gate({ SEARCHPLANE_EVAL_DATASETS: work }, targets(0.5));
  expect(run.code).toBe(1);
  expect(run.stdout).toContain(`eval gate FAILED: missing datasets: two (${join(work, 'two')})`);
});

test('the full table first, then one line per check and PASSED; a missed target FAILED and exit 1', async () => {
  writeBeirCollection(join(work, 'one'));
  writeBeirCollection(join(work, 'two'));

  const passed = await gate({ SEARCHPLANE_EVAL_DATASETS: work }, targets(0.5));
  expect(passed.code, passed.stdout).toBe(0);
  const lines = passed.stdout.trimEnd().split('\n');
  const rows = lines.filter((line) => /^(one|two|mean) {2,}/.test(line));
  expect(
    rows.map((row) =>
      row
        .split(/\s{2,}/)
        .slice(0, 2)
        .join(' / '),
    ),
  ).toEqual(
    ['one', 'two', 'mean'].flatMap((name) =>
      ['FTS5 BM25', 'w 0', 'w 0 + reranking', 'w 0.75', 'w 0.75 + reranking'].map((row) => `${name} / ${row}`),
    ),
  );
  expect(lines.filter((line) => line.startsWith('PASS '))).toHaveLength(6);
  expect(lines.at(-2)).toMatch(/^PASS one: default nDCG@10 \d\.\d{4} >= 0\.5000 = minimum$/);
  expect(lines.at(-1)).toBe('eval gate PASSED: all 6 checks');

  const failed = await gate({ SEARCHPLANE_EVAL_DATASETS: work }, targets(0.99));
  expect(failed.code).toBe(1);
  const failedLines = failed.stdout.trimEnd().split('\n');
  expect(failedLines.at(-2)).toMatch(/^FAIL one: default nDCG@10 \d\.\d{4} < 0\.9900 = minimum$/);
  expect(failedLines.at(-1)).toBe('eval gate FAILED: 1 of 6 checks');
});

test('a malformed targets file fails with every problem listed', async () => {
  const file = join(work, 'bad.json');
  writeFileSync(file, JSON.stringify({ datasets: ['one'], semanticWeights: [], reranking: 'maybe', topK: 100 }));
  const run = await gate({ SEARCHPLANE_EVAL_DATASETS: join(work, 'none') }, file);
  expect(run.code).toBe(1);
  expect(run.stdout).toMatch(/^eval gate ERROR: .*bad\.json:\n {2}- semanticWeights.*\n {2}- reranking/);
});
