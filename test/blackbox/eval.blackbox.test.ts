import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { writeBeirCollection, writeBeirFiles } from '../helpers/beir-collection.js';
import { parseJson, runCli, spawnCli } from './support/searchplane-process.js';

// Each run gets its own TMPDIR, so the test can see that the temporary server's dir is gone afterwards.
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

test('eval --json: one object with every configuration and FTS5, metrics in 0..1, and the temp server removed', async () => {
  const collection = writeBeirCollection(dataset);
  const run = await runCli(
    ['eval', '--dataset', dataset, '--semantic-weight', '0,0.75,1', '--reranking', 'both', '--json'],
    { TMPDIR: tmp },
  );
  expect(run.code, run.stderr).toBe(0);
  const report = parseJson(run.stdout);
  expect(report).toMatchObject({
    dataset: {
      name: 'collection',
      path: dataset,
      split: 'test',
      documents: collection.documents,
      queries: collection.judgedQueries,
      truncatedDocuments: 1,
    },
    embedder: expect.any(String),
    reranker: 'builtin',
    topK: 100,
    inputEnrichment: null,
    indexing: { indexMs: expect.any(Number), vectorsReadyMs: expect.any(Number) },
    fts5: { ndcgAt10: expect.any(Number), recallAt100: expect.any(Number), mrrAt10: expect.any(Number) },
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

test('the default run prints a table with FTS5 and one row for the service default weight', async () => {
  writeBeirCollection(dataset);
  const run = await runCli(['eval', '--dataset', dataset], { TMPDIR: tmp });
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.trimEnd().split('\n');
  const headerAt = lines.findIndex((line) => line.startsWith('collection'));
  expect(lines[headerAt].split(/\s{2,}/)).toEqual([
    'collection',
    'configuration',
    'nDCG@10',
    'Recall@100',
    'MRR@10',
    'p50 ms',
    'p95 ms',
    'mean ms',
  ]);
  const rows = lines.slice(headerAt + 2);
  expect(rows.map((row) => row.split(/\s{2,}/).slice(0, 2))).toEqual([
    ['collection', 'FTS5 BM25'],
    ['collection', 'w 0.75'],
  ]);
  expect(run.stdout).toMatch(/index time \d+(\.\d)? m?s · vectors fully indexed after \d+(\.\d)? m?s/);
  expect(run.stdout).toContain('input enrichment not sent');
});

test('several collections (repeated and comma-separated): one table with mean rows; --json {collections, mean}', async () => {
  const second = join(work, 'second');
  const third = join(work, 'third');
  for (const dir of [dataset, second, third]) writeBeirCollection(dir);
  const args = ['eval', '--dataset', dataset, '--dataset', `${second},${third}`, '--queries', '2'];
  const table = await runCli(args, { TMPDIR: tmp });
  expect(table.code, table.stderr).toBe(0);
  const rows = table.stdout
    .trimEnd()
    .split('\n')
    .filter((line) => /^(collection|second|third|mean) {2,}(FTS5|w )/.test(line))
    .map((line) =>
      line
        .split(/\s{2,}/)
        .slice(0, 2)
        .join(' / '),
    );
  expect(rows).toEqual([
    'collection / FTS5 BM25',
    'collection / w 0.75',
    'second / FTS5 BM25',
    'second / w 0.75',
    'third / FTS5 BM25',
    'third / w 0.75',
    'mean / FTS5 BM25',
    'mean / w 0.75',
  ]);

  const json = parseJson((await runCli([...args, '--json'], { TMPDIR: tmp })).stdout);
  expect(json.collections.map((report: any) => report.dataset.name)).toEqual(['collection', 'second', 'third']);
  expect(json.mean.map((row: any) => row.configuration)).toEqual(['FTS5 BM25', 'w 0.75']);
  // The same collection three times: the mean is each one's figure.
  expect(json.mean[1].ndcgAt10).toBeCloseTo(json.collections[0].configurations[0].ndcgAt10, 10);
  expect(readdirSync(tmp)).toEqual([]);
});

test('--input-enrichment on lets the enricher fix a misspelled query; a refused query counts 0 with a warning', async () => {
  writeBeirFiles(dataset, {
    corpus: [
      { _id: 'fish', title: 'Clownfish', text: 'Clownfish live among the anemones of the reef.' },
      { _id: 'hill', title: 'Volcano', text: 'A volcano erupts when magma reaches the surface.' },
    ],
    queries: [
      { _id: 'typo', text: 'clownfsh' },
      { _id: 'blank', text: '   ' },
    ],
    qrels: [
      ['typo', 'fish', 1],
      ['blank', 'hill', 1],
    ],
  });
  const args = ['eval', '--dataset', dataset, '--semantic-weight', '0', '--json', '--input-enrichment'];

  const enriched = parseJson((await runCli([...args, 'on'], { TMPDIR: tmp })).stdout);
  expect(enriched.inputEnrichment).toBe(true);
  expect(enriched.configurations[0].mrrAt10).toBe(0.5); // the typo found, the blank query 0
  expect(enriched.warnings).toEqual([
    expect.stringMatching(/^1 query was refused by the server \(400\) and counts as 0 .*'blank'/),
  ]);
  const byDefault = parseJson((await runCli(args.slice(0, -1), { TMPDIR: tmp })).stdout);
  expect(byDefault.inputEnrichment).toBeNull();
  expect(byDefault.configurations[0].mrrAt10).toBe(0.5); // not sent: the index's setting, on

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
    ['--dataset', `${dataset},,${dataset}`],
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
] as const)('%s during the run closes the server, removes its temp dir and exits %i', async (signal, code) => {
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
