import { describe, expect, test } from 'vitest';
import { openImportSource } from './import-sources.js';

/** Stdin as a pipe delivers it: the given pieces as separate reads. */
async function* pipe(...pieces: (string | number[])[]): AsyncGenerator<Buffer> {
  for (const piece of pieces) yield typeof piece === 'string' ? Buffer.from(piece) : Buffer.from(piece);
}

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
