import { describe, expect, test } from 'vitest';
import { openImportSource } from './import-sources.js';
import { SourceError } from './source-error.js';

/** Stdin as a pipe delivers it: the given pieces as separate reads. */
async function* pipe(...pieces: (string | number[])[]): AsyncGenerator<Buffer> {
  for (const piece of pieces) yield typeof piece === 'string' ? Buffer.from(piece) : Buffer.from(piece);
}

/** Each document's id and line, or the SourceError the import stopped with (after the documents before it). */
async function linesFrom(stdin: AsyncIterable<Buffer>, format: 'jsonl' | 'json' | 'csv') {
  const source = openImportSource('-', { format, csv: { idColumn: 'id' }, stdin });
  const documents: [string, number][] = [];
  try {
    for await (const { document, line } of source.documents()) documents.push([document.id, line]);
  } catch (error) {
    if (error instanceof SourceError) return { documents, error };
    throw error;
  }
  return { documents, error: undefined };
}

const doc = (id: string, extra = '') => `{"id":"${id}","content":{"t":"x"${extra}}}`;

async function idsFrom(stdin: AsyncIterable<Buffer>, format?: 'jsonl' | 'json' | 'csv'): Promise<string[]> {
  const source = openImportSource('-', { format, csv: { idColumn: 'id' }, stdin });
  const ids: string[] = [];
  for await (const { document } of source.documents()) ids.push(document.id);
  return ids;
}

describe('stdin imports, however the pipe splits the input', () => {
  test('the format comes from the first non-whitespace character, not the first read', async () => {
    expect(await idsFrom(pipe('\n', '  \r\n', '[{"id":"a","content":{}}]\n'))).toEqual(['a']);
    expect(await idsFrom(pipe('\n', '{"id":"b","content":{}}\n'))).toEqual(['b']);
  });

  test('a UTF-8 BOM is dropped even when split over reads', async () => {
    const rest = '{"id":"b","content":{"t":"x"}}\n';
    expect(await idsFrom(pipe([0xef], [0xbb, 0xbf], rest), 'jsonl')).toEqual(['b']);
    expect(await idsFrom(pipe([0xef], [0xbb], [0xbf], rest))).toEqual(['b']);
    expect(await idsFrom(pipe([0xef, 0xbb], [0xbf, ...Buffer.from('id,t\nc,x\n')]), 'csv')).toEqual(['c']);
  });

  test('input that is only whitespace still says it cannot tell the format', async () => {
    await expect(idsFrom(pipe('\n', ' '))).rejects.toThrow(/cannot tell the format of stdin/);
  });
});

describe('JSON Lines', () => {
  test('one document per line with its line number; CRLF, blank lines and no final line break', async () => {
    const text = `${doc('a')}\r\n\n  \n${doc('b')}\n${doc('c')}`;
    for (const size of [1, 7, 1000]) {
      const chunks = Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
        text.slice(i * size, (i + 1) * size),
      );
      expect(await linesFrom(pipe(...chunks), 'jsonl')).toEqual({
        documents: [
          ['a', 1],
          ['b', 4],
          ['c', 5],
        ],
        error: undefined,
      });
    }
  });

  test('a line that is not JSON stops the import at that line, after the lines before it', async () => {
    const { documents, error } = await linesFrom(pipe(`${doc('a')}\n\n{"id": oops}\n${doc('c')}\n`), 'jsonl');
    expect(documents).toEqual([['a', 1]]);
    expect(error?.line).toBe(3);
    expect(error?.message).toMatch(/^stdin:3: not valid JSON/);
  });

  test('a truncated last line is an error on its line', async () => {
    const { documents, error } = await linesFrom(pipe(`${doc('a')}\n{"id":`), 'jsonl');
    expect(documents).toEqual([['a', 1]]);
    expect(error?.line).toBe(2);
  });

  test('a long line cut over many reads is read whole', async () => {
    const long = doc('huge', `,"u":"${'a '.repeat(200_000)}"`);
    const text = `${doc('a')}\n${long}\n${doc('b')}\n`;
    const chunks = Array.from({ length: Math.ceil(text.length / 1000) }, (_, i) =>
      text.slice(i * 1000, (i + 1) * 1000),
    );
    expect((await linesFrom(pipe(...chunks), 'jsonl')).documents).toEqual([
      ['a', 1],
      ['huge', 2],
      ['b', 3],
    ]);
  });
});
