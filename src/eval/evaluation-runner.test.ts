import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { writeBeirFiles } from '../../test/helpers/beir-collection.js';
import { loadConfig } from '../config.js';
import { DOCUMENT_LIMITS } from '../engine/index.js';
import { documentContent, runEvaluations } from './evaluation-runner.js';

const LIMIT = DOCUMENT_LIMITS.textMaxLength;

describe('documentContent', () => {
  test('title and text as they are when they fit; no title field when the title is empty', () => {
    expect(documentContent({ id: 'a', title: 'Reef', text: 'Fish.' })).toEqual({
      content: { title: 'Reef', text: 'Fish.' },
      truncated: false,
    });
    expect(documentContent({ id: 'b', title: '', text: 'Fish.' })).toEqual({
      content: { text: 'Fish.' },
      truncated: false,
    });
  });

  test('exactly at the limit (title + newline + text) is left alone', () => {
    const title = 'T'.repeat(10);
    const text = 'x'.repeat(LIMIT - 11);
    expect(documentContent({ id: 'c', title, text })).toEqual({ content: { title, text }, truncated: false });
  });

  test('a longer text is cut at a word boundary so that title, newline and text fit the limit', () => {
    const title = 'A title';
    const text = 'word '.repeat(LIMIT); // 5 × LIMIT characters
    const { content, truncated } = documentContent({ id: 'd', title, text });
    expect(truncated).toBe(true);
    expect(content.title).toBe(title);
    expect(title.length + 1 + content.text.length).toBeLessThanOrEqual(LIMIT);
    expect(title.length + 1 + content.text.length).toBeGreaterThan(LIMIT - 100);
    expect(content.text.endsWith('word')).toBe(true);
    expect(text.startsWith(content.text)).toBe(true);
  });

  test('a text without spaces is cut at the limit, never inside a surrogate pair', () => {
    const text = '😀'.repeat(LIMIT); // two UTF-16 units each
    const { content } = documentContent({ id: 'e', title: '', text });
    expect(content.text.length).toBe(LIMIT);
    const even = documentContent({ id: 'f', title: 'T', text }).content.text; // room LIMIT - 2: even, fine
    expect(even.length).toBe(LIMIT - 2);
    const shifted = documentContent({ id: 'g', title: 'TT', text }).content.text; // room LIMIT - 3: odd
    expect(shifted.length).toBe(LIMIT - 4);
    expect(shifted.endsWith('😀')).toBe(true);
  });
});

describe('runEvaluations through a temporary server', () => {
  let work: string;
  let savedTmpdir: string | undefined;
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'eval-runner-'));
    // The temporary server makes its dir under TMPDIR; a dir of the test's own shows it is removed.
    savedTmpdir = process.env.TMPDIR;
    process.env.TMPDIR = join(work, 'tmp');
    mkdirSync(process.env.TMPDIR);
  });
  afterEach(() => {
    if (savedTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmpdir;
    rmSync(work, { recursive: true, force: true });
  });

  test('every configuration scored over HTTP, FTS5 beside it, refused queries 0, temp dir removed', async () => {
    const dataset = join(work, 'tiny');
    writeBeirFiles(dataset, {
      corpus: [
        { _id: 'fish', title: 'Clownfish', text: 'Clownfish live among the anemones of the coral reef.' },
        { _id: 'hill', title: 'Volcano', text: 'A volcano erupts when magma reaches the surface.' },
        { _id: 'ice', title: 'Glacier', text: 'A glacier is a river of ice that moves slowly downhill.' },
        { _id: 'sky', title: 'Telescope', text: 'A telescope gathers light from distant stars.' },
      ],
      queries: [
        { _id: 'reef', text: 'fish of the coral reef' },
        { _id: 'magma', text: 'volcano magma' },
        { _id: 'blank', text: '   ' },
      ],
      qrels: [
        ['reef', 'fish', 1],
        ['magma', 'hill', 1],
        ['blank', 'ice', 1],
      ],
    });
    const config = loadConfig({ dataDir: join(work, 'data') }, { LOG_LEVEL: 'silent' });
    const lines: string[] = [];
    const [report] = await runEvaluations(
      [dataset],
      { split: 'test', semanticWeights: [0, 0.75], reranking: [false, true], topK: 10, vectorTimeoutMs: 60_000 },
      config,
      (line) => lines.push(line),
    );
    expect(report.dataset).toMatchObject({ name: 'tiny', documents: 4, queries: 3, truncatedDocuments: 0 });
    expect(report.inputEnrichment).toBeNull();
    expect(report.configurations.map((c) => [c.semanticWeight, c.reranking])).toEqual([
      [0, false],
      [0, true],
      [0.75, false],
      [0.75, true],
    ]);
    for (const result of [...report.configurations, report.fts5]) {
      // Two of three queries find their only relevant document first; the blank one scores 0.
      expect(result.ndcgAt10).toBeGreaterThan(0.5);
      expect(result.ndcgAt10).toBeLessThanOrEqual(2 / 3 + 1e-9);
    }
    expect(report.fts5).toEqual({ ndcgAt10: 2 / 3, recallAt100: 2 / 3, mrrAt10: 2 / 3 });
    expect(report.warnings).toEqual([expect.stringMatching(/^1 query was refused by the server \(400\).*'blank'/)]);
    expect(lines.some((line) => line.startsWith('FTS5 BM25: nDCG@10'))).toBe(true);
    const indexedInto = lines.map((line) => /^indexing 4 documents into (.+)$/.exec(line)?.[1]).find(Boolean);
    expect(indexedInto?.startsWith(join(work, 'tmp', 'searchplane-eval-'))).toBe(true);
    expect(existsSync(indexedInto as string)).toBe(false);
    expect(readdirSync(join(work, 'tmp')).filter((name) => name.startsWith('searchplane-eval-'))).toEqual([]);
  });
});
