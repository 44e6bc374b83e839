import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { writeBeirCollection } from '../helpers/beir-collection.js';
import { parseJson, runCli, spawnCli } from './support/searchplane-process.js';

// Each run gets its own TMPDIR, so the test can see that the temporary index is gone afterwards.
let work: string;
let tmp: string;
let dataset: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'eval-blackbox-'));
  tmp = join(work, 'tmp');
  dataset = join(work, 'collection');
  mkdirSync(tmp);
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

test('eval --json: one object with every configuration, metrics in 0..1, and the temp index removed', async () => {
  const collection = writeBeirCollection(dataset);
  const run = await runCli(
    ['eval', '--dataset', dataset, '--semantic-weight', '0,0.75,1', '--reranking', 'both', '--json'],
    { TMPDIR: tmp },
  );
  expect(run.code, run.stderr).toBe(0);
  const report = parseJson(run.stdout);
  expect(report).toMatchObject({
    dataset: {
      path: dataset,
      split: 'test',
      documents: collection.documents,
      queries: collection.judgedQueries,
      truncatedDocuments: 1,
    },
    embedder: expect.any(String),
    reranker: 'builtin',
    topK: 100,
    inputEnrichment: false,
    indexing: { indexMs: expect.any(Number), vectorsReadyMs: expect.any(Number) },
    warnings: [],
  });
  expect(report.indexing.vectorsReadyMs).toBeGreaterThanOrEqual(report.indexing.indexMs);
  expect(report.configurations.map((c: any) => [c.semanticWeight, c.reranking])).toEqual([
    [0, false],
    [0, true],
    [0.75, false],
    [0.75, true],
    [1, false],
    [1, true],
  ]);
  for (const result of report.configurations) {
    expect(Object.keys(result).sort()).toEqual(
      ['latencyMs', 'mrrAt10', 'ndcgAt10', 'recallAt100', 'reranking', 'semanticWeight'].sort(),
    );
    for (const metric of [result.ndcgAt10, result.recallAt100, result.mrrAt10]) {
      expect(metric).toBeGreaterThanOrEqual(0);
      expect(metric).toBeLessThanOrEqual(1);
    }
    expect(result.latencyMs.p95).toBeGreaterThanOrEqual(result.latencyMs.p50);
  }
  // "quantum zebra" shares no word with any document: full text alone cannot find its document
  expect(report.configurations[0].recallAt100).toBeLessThan(1);
  expect(readdirSync(tmp)).toEqual([]);
});

test('a query whose relevant document is an exact title match gets MRR 1 in every configuration', async () => {
  const collection = writeBeirCollection(dataset);
  const run = await runCli(
    ['eval', '--dataset', dataset, '--queries', '1', '--semantic-weight', '0,0.75', '--reranking', 'both', '--json'],
    { TMPDIR: tmp },
  );
  expect(run.code, run.stderr).toBe(0);
  const report = parseJson(run.stdout);
  expect(report.dataset.queries).toBe(1);
  expect(collection.exactTitleQuery).toBe('The espresso handbook');
  for (const result of report.configurations) {
    expect(result).toMatchObject({ mrrAt10: 1, ndcgAt10: 1, recallAt100: 1 });
  }
});

test('the default run prints a table with one row for the service default weight', async () => {
  writeBeirCollection(dataset);
  const run = await runCli(['eval', '--dataset', dataset], { TMPDIR: tmp });
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.trimEnd().split('\n');
  const headerAt = lines.findIndex((line) => line.startsWith('semantic weight'));
  expect(lines[headerAt].split(/\s{2,}/)).toEqual([
    'semantic weight',
    'reranking',
    'nDCG@10',
    'Recall@100',
    'MRR@10',
    'p50 ms',
    'p95 ms',
    'mean ms',
  ]);
  const rows = lines.slice(headerAt + 2);
  expect(rows).toHaveLength(1);
  expect(rows[0].split(/\s+/).slice(0, 2)).toEqual(['0.75', 'off']);
  expect(run.stdout).toMatch(/index time \d+(\.\d)? m?s · vectors fully indexed after \d+(\.\d)? m?s/);
});

test('--input-enrichment on lets the enricher fix a misspelled query; a refused query counts 0 with a warning', async () => {
  mkdirSync(join(dataset, 'qrels'), { recursive: true });
  const jsonl = (records: object[]) => records.map((record) => JSON.stringify(record)).join('\n');
  writeFileSync(
    join(dataset, 'corpus.jsonl'),
    jsonl([
      { _id: 'fish', title: 'Clownfish', text: 'Clownfish live among the anemones of the reef.' },
      { _id: 'hill', title: 'Volcano', text: 'A volcano erupts when magma reaches the surface.' },
    ]),
  );
  writeFileSync(
    join(dataset, 'queries.jsonl'),
    jsonl([
      { _id: 'typo', text: 'clownfsh' },
      { _id: 'blank', text: '   ' },
    ]),
  );
  writeFileSync(join(dataset, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\ntypo\tfish\t1\nblank\thill\t1\n');
  const args = ['eval', '--dataset', dataset, '--semantic-weight', '0', '--json', '--input-enrichment'];

  const enriched = parseJson((await runCli([...args, 'on'], { TMPDIR: tmp })).stdout);
  expect(enriched.inputEnrichment).toBe(true);
  expect(enriched.configurations[0].mrrAt10).toBe(0.5); // the typo found, the blank query 0
  expect(enriched.warnings).toEqual([
    expect.stringMatching(/^1 query was refused by the engine and counts as 0 .*'blank'/),
  ]);

  const plain = parseJson((await runCli([...args, 'off'], { TMPDIR: tmp })).stdout);
  expect(plain.inputEnrichment).toBe(false);
  expect(plain.configurations[0].mrrAt10).toBe(0);
});

test('bad options are usage errors (exit 2); a malformed collection fails naming the file and line (exit 1)', async () => {
  writeBeirCollection(dataset);
  for (const args of [
    ['--semantic-weight', '0,1.5'],
    ['--reranking', 'sometimes'],
    ['--top-k', '0'],
    ['--input-enrichment', 'yes'],
  ]) {
    const run = await runCli(['eval', '--dataset', dataset, ...args], { TMPDIR: tmp });
    expect(run.code, args.join(' ')).toBe(2);
  }
  appendFileSync(join(dataset, 'queries.jsonl'), '{"_id": "broken"\n');
  const run = await runCli(['eval', '--dataset', dataset], { TMPDIR: tmp });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`${join(dataset, 'queries.jsonl')} line 7:`);
  expect(readdirSync(tmp)).toEqual([]);
});

test.each([
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)('%s during the run closes the engine, removes the temporary index and exits %i', async (signal, code) => {
  writeBeirCollection(dataset, 4000);
  const child = spawnCli(['eval', '--dataset', dataset], { TMPDIR: tmp });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (/indexing \d+ documents/.test(stderr)) resolve();
    });
    child.on('close', () => reject(new Error(`exited before indexing:\n${stderr}`)));
  });
  expect(readdirSync(tmp)).toHaveLength(1);
  child.kill(signal);
  // null would mean killed by a signal: an abort (e.g. exiting under a busy HNSW worker) or no handler
  expect(await exited, stderr).toBe(code);
  expect(readdirSync(tmp)).toEqual([]);
});
