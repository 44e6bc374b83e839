import { expect, test } from 'vitest';
import { exportDocuments, type RangePage } from './document-exporter.js';

test('pages through range until nextCursor is "" and writes one {"id","content","metadata"} line each', async () => {
  const pages: Record<string, RangePage> = {
    '': {
      nextCursor: 'c2',
      vectors: [
        { id: 'a', content: { t: 1 }, metadata: { m: 1 } },
        { id: 'b', content: { t: 2 } },
      ],
    },
    c2: { nextCursor: '', vectors: [{ id: 'c', content: { t: 3 }, metadata: null as unknown as undefined }] },
  };
  const cursors: string[] = [];
  const written: string[] = [];
  const progress: number[] = [];
  const count = await exportDocuments({
    range: async (cursor) => {
      cursors.push(cursor);
      return pages[cursor];
    },
    write: async (text) => {
      written.push(text);
    },
    onProgress: (done) => progress.push(done),
  });
  expect(count).toBe(3);
  expect(cursors).toEqual(['', 'c2']);
  expect(progress).toEqual([2, 3]);
  expect(
    written
      .join('')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line)),
  ).toEqual([
    { id: 'a', content: { t: 1 }, metadata: { m: 1 } },
    { id: 'b', content: { t: 2 } },
    { id: 'c', content: { t: 3 } },
  ]);
});

test('an empty page ends the export even if the server sends a cursor', async () => {
  let calls = 0;
  const count = await exportDocuments({
    range: async () => {
      calls++;
      return { nextCursor: 'again', vectors: [] };
    },
    write: async () => {},
  });
  expect(count).toBe(0);
  expect(calls).toBe(1);
});
