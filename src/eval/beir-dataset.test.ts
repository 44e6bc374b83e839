import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { DatasetError, readBeirDataset } from './beir-dataset.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'beir-reader-'));
  mkdirSync(join(dir, 'qrels'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const jsonl = (...records: unknown[]) => `${records.map((record) => JSON.stringify(record)).join('\n')}\n`;

function write(files: { corpus?: string; queries?: string; qrels?: string }): void {
  writeFileSync(
    join(dir, 'corpus.jsonl'),
    files.corpus ??
      jsonl(
        { _id: 'd1', title: 'Clownfish', text: 'Orange fish of the reef.', metadata: {} },
        { _id: 'd2', title: '', text: 'No title here.' },
      ),
  );
  writeFileSync(
    join(dir, 'queries.jsonl'),
    files.queries ?? jsonl({ _id: 'q1', text: 'reef fish', metadata: {} }, { _id: 'q2', text: 'unjudged' }),
  );
  writeFileSync(join(dir, 'qrels', 'test.tsv'), files.qrels ?? 'query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\n');
}

async function failure(promise: Promise<unknown>): Promise<DatasetError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(DatasetError);
  return error as DatasetError;
}

describe('readBeirDataset', () => {
  test('reads documents, and only the queries that have qrels, with their graded judgments', async () => {
    write({});
    const dataset = await readBeirDataset(dir);
    expect(dataset.documents).toEqual([
      { id: 'd1', title: 'Clownfish', text: 'Orange fish of the reef.' },
      { id: 'd2', title: '', text: 'No title here.' },
    ]);
    expect(dataset.queries).toEqual([
      {
        id: 'q1',
        text: 'reef fish',
        judgments: new Map([
          ['d1', 2],
          ['d2', 0],
        ]),
      },
    ]);
    expect(dataset.warnings).toEqual([]);
  });

  test('accepts CRLF line ends, a byte-order mark, blank lines, numeric ids, a missing title and the TREC qrels form', async () => {
    write({
      corpus: `\uFEFF${JSON.stringify({ _id: 7, text: 'seven' })}\r\n\r\n${JSON.stringify({ _id: 'd8', title: null, text: 'eight' })}\r\n`,
      queries: jsonl({ _id: 1, text: 'number seven' }),
      qrels: '1 0 7 1\n1 0 d8 1\n',
    });
    const dataset = await readBeirDataset(dir);
    expect(dataset.documents).toEqual([
      { id: '7', title: '', text: 'seven' },
      { id: 'd8', title: '', text: 'eight' },
    ]);
    expect(dataset.queries.map((query) => [query.id, [...query.judgments]])).toEqual([
      [
        '1',
        [
          ['7', 1],
          ['d8', 1],
        ],
      ],
    ]);
  });

  test('reads another split from qrels/<split>.tsv', async () => {
    write({});
    writeFileSync(join(dir, 'qrels', 'dev.tsv'), 'query-id\tcorpus-id\tscore\nq2\td2\t1\n');
    const dataset = await readBeirDataset(dir, 'dev');
    expect(dataset.queries.map((query) => query.id)).toEqual(['q2']);
  });

  test('warns about qrels naming unknown queries (skipped) or unknown documents (kept)', async () => {
    write({ qrels: 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq9\td1\t1\nq1\tgone\t1\n' });
    const dataset = await readBeirDataset(dir);
    expect(dataset.queries.map((query) => query.id)).toEqual(['q1']);
    expect(dataset.queries[0].judgments.get('gone')).toBe(1);
    expect(dataset.warnings).toHaveLength(2);
    expect(dataset.warnings[0]).toContain("'q9'");
  });

  test.each([
    ['corpus.jsonl', { corpus: jsonl({ _id: 'd1', text: 'ok' }).concat('{"_id": "d2", "text": \n') }, 2],
    ['corpus.jsonl', { corpus: jsonl({ _id: 'd1', text: 'ok' }, ['an', 'array']) }, 2],
    ['corpus.jsonl', { corpus: jsonl({ _id: 'd1', text: 'ok' }, { title: 'no id', text: 'x' }) }, 2],
    ['corpus.jsonl', { corpus: jsonl({ _id: 'd1', text: 'ok' }, { _id: 'd2', title: ['x'], text: 'b' }) }, 2],
    ['corpus.jsonl', { corpus: jsonl({ _id: 'd1', text: 'ok' }, { _id: 'd3', text: 42 }) }, 2],
    [
      'corpus.jsonl',
      { corpus: jsonl({ _id: 'd1', text: 'a' }, { _id: 'd2', text: 'b' }, { _id: 'd1', text: 'c' }) },
      3,
    ],
    ['queries.jsonl', { queries: jsonl({ _id: 'q1', text: 'ok' }, { _id: 'q2' }) }, 2],
    ['queries.jsonl', { queries: jsonl({ _id: 'q1', text: 'ok' }, { _id: 'q1', text: 'again' }) }, 2],
    ['qrels/test.tsv', { qrels: 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\n' }, 3],
    ['qrels/test.tsv', { qrels: 'query-id\tcorpus-id\tscore\nq1\td1\tyes\n' }, 2],
    ['qrels/test.tsv', { qrels: 'q1\td1\t1\nq1\td2\t0.5\n' }, 2],
  ])('a malformed line in %s is an error naming the file and line (%#)', async (file, files, line) => {
    write(files);
    const error = await failure(readBeirDataset(dir));
    expect(error.file).toBe(join(dir, file));
    expect(error.line).toBe(line);
    expect(error.message).toContain(`${join(dir, file)} line ${line}:`);
  });

  test.each(['corpus.jsonl', 'queries.jsonl', 'qrels/test.tsv'])('a missing %s is an error naming it', async (file) => {
    write({});
    rmSync(join(dir, file));
    const error = await failure(readBeirDataset(dir));
    expect(error.file).toBe(join(dir, file));
    expect(error.line).toBeUndefined();
  });

  test('a split name cannot leave the qrels folder', async () => {
    write({});
    await failure(readBeirDataset(dir, '../corpus'));
  });
});
