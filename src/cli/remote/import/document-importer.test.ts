import { describe, expect, test } from 'vitest';
import { RemoteError } from '../http-request.js';
import { DocumentImporter } from './document-importer.js';
import type { ImportDocument } from './import-document.js';

const doc = (id: string, text = 'x'): ImportDocument => ({ id, content: { text } });
const ids = (documents: ImportDocument[]) => documents.map((document) => document.id);

/** An importer over a fake upsert that records every batch and refuses what `refuse` says. */
function importer(options: {
  maxDocuments?: number;
  maxBytes?: number;
  refuse?: (batch: ImportDocument[]) => RemoteError | undefined;
}) {
  const batches: string[][] = [];
  const progress: number[] = [];
  const instance = new DocumentImporter({
    maxDocuments: options.maxDocuments ?? 1000,
    maxBytes: options.maxBytes ?? 1_000_000,
    upsert: async (batch) => {
      batches.push(ids(batch));
      const error = options.refuse?.(batch);
      if (error) throw error;
    },
    onProgress: (imported) => progress.push(imported),
  });
  return { instance, batches, progress };
}

async function addAll(target: DocumentImporter, documents: ImportDocument[]) {
  for (const document of documents) await target.add(document);
  await target.flush();
}

const tooLarge = (id: string) =>
  new RemoteError(`400 bad request: Document '${id}': content text is too long`, 'http', 400);

describe('DocumentImporter', () => {
  test('batches hold at most maxDocuments documents, in file order', async () => {
    const { instance, batches, progress } = importer({ maxDocuments: 2 });
    await addAll(
      instance,
      ['a', 'b', 'c', 'd', 'e'].map((id) => doc(id)),
    );
    expect(batches).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(progress).toEqual([2, 4, 5]);
    expect(instance.imported).toBe(5);
    expect(instance.failures).toEqual([]);
  });

  test('a batch is sent before it would pass maxBytes (the JSON array body)', async () => {
    const size = Buffer.byteLength(JSON.stringify(doc('a', 'y'.repeat(100)))) + 1;
    const { instance, batches } = importer({ maxBytes: 2 + size * 2 });
    await addAll(
      instance,
      ['a', 'b', 'c'].map((id) => doc(id, 'y'.repeat(100))),
    );
    expect(batches).toEqual([['a', 'b'], ['c']]);
  });

  test('a document alone above maxBytes is still sent, on its own', async () => {
    const { instance, batches } = importer({ maxBytes: 50 });
    await addAll(instance, [doc('a', 'z'.repeat(200)), doc('b')]);
    expect(batches).toEqual([['a'], ['b']]);
  });

  test('a 400 batch is split until only the bad documents fail; the rest are imported', async () => {
    const bad = new Set(['c', 'f']);
    const { instance } = importer({
      maxDocuments: 8,
      refuse: (batch) => {
        const culprit = batch.find((document) => bad.has(document.id));
        return culprit ? tooLarge(culprit.id) : undefined;
      },
    });
    await addAll(
      instance,
      'abcdefgh'.split('').map((id) => doc(id)),
    );
    expect(instance.imported).toBe(6);
    expect(instance.failedIds).toEqual(['c', 'f']);
    expect(instance.failures[0].error).toContain("Document 'c'");
  });

  test('a 413 is split the same way', async () => {
    const { instance } = importer({
      refuse: (batch) =>
        batch.length > 1 ? new RemoteError('413 payload_too_large: too large', 'http', 413) : undefined,
    });
    await addAll(
      instance,
      ['a', 'b', 'c'].map((id) => doc(id)),
    );
    expect(instance.imported).toBe(3);
    expect(instance.failures).toEqual([]);
  });

  test.each([
    ['401', new RemoteError('401 unauthorized: Invalid auth token', 'http', 401)],
    ['403 (max_vector_count)', new RemoteError('403 forbidden: Upsert refused', 'http', 403)],
    [
      '429 that cannot be waited for',
      new RemoteError('429 too many requests: Daily writes quota', 'http', 429, 3_600_000),
    ],
    ['no answer', new RemoteError('cannot reach http://127.0.0.1:9/: connection refused', 'network')],
  ])('a %s stops the import, with the batch recorded as failed', async (_name, error) => {
    const { instance, batches } = importer({
      maxDocuments: 2,
      refuse: (batch) => (batch[0].id === 'c' ? error : undefined),
    });
    await expect(
      addAll(
        instance,
        ['a', 'b', 'c', 'd', 'e'].map((id) => doc(id)),
      ),
    ).rejects.toBe(error);
    expect(batches).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(instance.imported).toBe(2);
    expect(instance.failures).toEqual([{ ids: ['c', 'd'], error: error.message }]);
  });
});
