import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IndexEngine, SearchEngine } from '../contract.js';
import { createBuiltinEmbedder } from '../providers/builtin-embedder.js';
import { createBuiltinEmbedderV1 } from '../providers/builtin-embedder-v1.js';
import { indexed, NO_LIMIT, rejection, searchRequest, tempDir, testEngine } from '../test-fixtures.js';

const ALL = { includeData: true, includeMetadata: true };
const IDS_ONLY = { includeData: false, includeMetadata: false };

describe('embedded index', () => {
  let temp: ReturnType<typeof tempDir>;
  let engine: SearchEngine;
  let index: IndexEngine;

  beforeEach(async () => {
    temp = tempDir();
    engine = testEngine(temp.dir);
    index = await engine.open('idx');
  });
  afterEach(async () => {
    await engine.close();
    temp.remove();
  });

  it('upserts, replaces by id and fetches aligned with the ids', async () => {
    await index.upsert(
      '',
      [
        { id: 'a', content: { title: 'first' }, metadata: { v: 1 } },
        { id: 'b', content: { title: 'bee' } },
      ],
      NO_LIMIT,
    );
    await index.upsert('', [{ id: 'a', content: { title: 'second' } }], NO_LIMIT);
    expect(await index.fetch('', { ids: ['a', 'missing', 'b'] }, ALL)).toEqual([
      { id: 'a', content: { title: 'second' } },
      null,
      { id: 'b', content: { title: 'bee' } },
    ]);
    expect(await index.fetch('', { ids: ['a'] }, { includeData: false, includeMetadata: true })).toEqual([{ id: 'a' }]);
    const hits = (await index.search('', searchRequest('first second', { semanticWeight: 0 }))).hits;
    expect(hits.map((hit) => [hit.id, hit.content])).toEqual([['a', { title: 'second' }]]);
    expect((await index.info()).vectorCount).toBe(2);
  });

  it('applies the last occurrence of a repeated id within one batch', async () => {
    await index.upsert(
      '',
      [
        { id: 'x', content: { n: 'one' } },
        { id: 'x', content: { n: 'two' } },
      ],
      NO_LIMIT,
    );
    expect(await index.fetch('', { ids: ['x'] }, ALL)).toEqual([{ id: 'x', content: { n: 'two' } }]);
    expect((await index.info()).vectorCount).toBe(1);
  });

  it('fetches and deletes by prefix, by ids and by filter', async () => {
    const docs = ['user:1', 'user:2', 'user:10', 'users', 'item:1'].map((id, n) => ({
      id,
      content: { n, kind: id.split(':')[0] },
    }));
    await index.upsert('ns', docs, NO_LIMIT);
    expect((await index.fetch('ns', { prefix: 'user:', limit: 10 }, IDS_ONLY)).map((d) => d!.id)).toEqual([
      'user:1',
      'user:10',
      'user:2',
    ]);
    expect((await index.fetch('ns', { prefix: 'user', limit: 2 }, IDS_ONLY)).map((d) => d!.id)).toEqual([
      'user:1',
      'user:10',
    ]);
    expect(await index.delete('ns', { ids: ['user:1', 'nope'] })).toBe(1);
    expect(await index.delete('ns', { prefix: 'user:' })).toBe(2);
    expect(await index.delete('ns', { filter: "kind = 'item'" })).toBe(1);
    expect((await index.range('ns', { cursor: '', limit: 10, ...IDS_ONLY })).documents).toEqual([{ id: 'users' }]);
    expect(await index.delete('other', { ids: ['users'] })).toBe(0);
    expect((await rejection(index.delete('ns', { filter: 'kind =' }))).code).toBe('invalid_filter');
    expect((await rejection(index.delete('ns', { prefix: '' }))).code).toBe('invalid_request');
  });

  it('ranges over every document exactly once with an opaque cursor, even with concurrent inserts', async () => {
    const ids = Array.from({ length: 57 }, (_, i) => `doc-${String(i).padStart(3, '0')}`);
    await index.upsert(
      '',
      ids.map((id) => ({ id, content: { id } })),
      NO_LIMIT,
    );
    const seen: string[] = [];
    let cursor = '';
    let pages = 0;
    do {
      const page = await index.range('', { cursor, limit: 10, ...IDS_ONLY });
      seen.push(...page.documents.map((d) => d.id));
      // New ids before and after the cursor while the scan runs.
      await index.upsert(
        '',
        [
          { id: `doc-000-new-${pages}`, content: {} },
          { id: `zzz-${pages}`, content: {} },
        ],
        NO_LIMIT,
      );
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== '');
    const original = seen.filter((id) => ids.includes(id));
    expect(original).toEqual(ids);
    expect(new Set(seen).size).toBe(seen.length);
    const prefixed = await index.range('', { cursor: '', limit: 100, prefix: 'zzz', ...IDS_ONLY });
    expect(prefixed.documents.length).toBe(pages);
    expect(prefixed.nextCursor).toBe('');
    expect((await rejection(index.range('', { cursor: 'not a cursor!', limit: 1, ...IDS_ONLY }))).code).toBe(
      'invalid_request',
    );
  });

  it('tracks namespaces through reset and deleteNamespace', async () => {
    await index.upsert('a', [{ id: '1', content: { t: 'x' } }], NO_LIMIT);
    await index.upsert(
      'b',
      [
        { id: '1', content: { t: 'y' } },
        { id: '2', content: { t: 'z' } },
      ],
      NO_LIMIT,
    );
    await index.reset('a');
    expect((await index.listNamespaces()).sort()).toEqual(['a', 'b']);
    const info = await index.info();
    expect(info.namespaces).toEqual({
      a: { vectorCount: 0, pendingVectorCount: 0 },
      b: { vectorCount: 2, pendingVectorCount: expect.any(Number) },
    });
    expect(info.vectorCount).toBe(2);
    expect(info.indexSize).toBeGreaterThan(0);
    await index.deleteNamespace('a');
    expect(await index.listNamespaces()).toEqual(['b']);
    expect((await rejection(index.deleteNamespace('a'))).code).toBe('namespace_not_found');
    await index.upsert('a', [{ id: '9', content: { t: 'again' } }], NO_LIMIT);
    expect((await index.search('a', searchRequest('again'))).hits.map((h) => h.id)).toEqual(['9']);
    expect((await index.search('missing', searchRequest('again'))).hits).toEqual([]);
  });

  it('validates documents and names the id and the limit', async () => {
    const cases: [unknown, string, string][] = [
      [[{ id: '', content: {} }], 'invalid_request', 'id'],
      [[{ id: 'x'.repeat(257), content: {} }], 'document_too_large', '256'],
      [
        [{ id: 'big', content: { text: 'y'.repeat(4097) } }],
        'document_too_large',
        "'big': content text is 4097 characters; the limit is 4096",
      ],
      [
        [{ id: 'nested', content: { a: { b: ['y'.repeat(3000), 'z'.repeat(1200)] } } }],
        'document_too_large',
        "'nested'",
      ],
      [
        [{ id: 'meta', content: {}, metadata: { blob: 'm'.repeat(49_200) } }],
        'document_too_large',
        'the limit is 49152',
      ],
      [[{ id: 'arr', content: ['no'] }], 'invalid_request', "document 'arr'"],
      [[{ id: 'm', content: {}, metadata: 'no' }], 'invalid_request', 'metadata'],
    ];
    for (const [docs, code, message] of cases) {
      const error = await rejection(index.upsert('', docs as never, NO_LIMIT));
      expect([error.code, error.message]).toEqual([code, expect.stringContaining(message)]);
    }
    expect((await index.info()).vectorCount).toBe(0);
    // Numbers and booleans are indexed too, but the limit counts the string values alone.
    const full = { id: 'full', content: { text: 'y'.repeat(4096), year: 2020, ok: true, scores: [1, 2, 3] } };
    await index.upsert('', [full], NO_LIMIT);
    expect((await index.info()).vectorCount).toBe(1);
  });

  it('enforces maxVectorCount atomically, counting replacements', async () => {
    await index.upsert(
      'a',
      [
        { id: '1', content: {} },
        { id: '2', content: {} },
      ],
      { maxVectorCount: 3 },
    );
    const error = await rejection(
      index.upsert(
        'b',
        [
          { id: '3', content: {} },
          { id: '4', content: {} },
        ],
        { maxVectorCount: 3 },
      ),
    );
    expect(error.code).toBe('vector_limit_exceeded');
    expect(error.status).toBe(403);
    expect(error.message).toContain('3');
    expect(await index.listNamespaces()).toEqual(['a']); // nothing written, not even the namespace
    await index.upsert(
      'a',
      [
        { id: '1', content: { v: 2 } },
        { id: '2', content: { v: 2 } },
        { id: '3', content: {} },
      ],
      { maxVectorCount: 3 },
    );
    expect((await index.info()).vectorCount).toBe(3);
    await index.upsert('a', [{ id: '3', content: { v: 3 } }], { maxVectorCount: 3 });
  });

  it('refuses to reopen an index with a different embedder', async () => {
    await index.upsert('', [{ id: '1', content: { t: 'hello' } }], NO_LIMIT);
    await engine.close();
    const other = testEngine(temp.dir, { embedder: createBuiltinEmbedder(64) });
    // Opening is lazy: the first call on the index refuses.
    const error = await rejection((await other.open('idx')).info());
    expect(error.message).toMatch(
      /built with embedder 'builtin-hash-v2\/512' \(512 dimensions\).*'builtin-hash-v2\/64'/,
    );
    await other.close();
    engine = testEngine(temp.dir);
    index = await engine.open('idx');
    expect((await index.fetch('', { ids: ['1'] }, IDS_ONLY))[0]).toEqual({ id: '1' });
  });

  it('keeps using the first builtin embedder for an index filled with it', async () => {
    await engine.close();
    const legacy = testEngine(temp.dir, { embedder: createBuiltinEmbedderV1() });
    await (await legacy.open('idx')).upsert('', [{ id: '1', content: { t: 'hello world' } }], NO_LIMIT);
    await legacy.close();
    engine = testEngine(temp.dir); // the current builtin embedder is configured
    index = await engine.open('idx');
    await index.upsert('', [{ id: '2', content: { t: 'hello there' } }], NO_LIMIT);
    const hits = (await index.search('', searchRequest('hello world', { semanticWeight: 1 }))).hits;
    expect(hits.map((hit) => hit.id)).toEqual(['1', '2']);
    expect(hits[0].score).toBeCloseTo(1, 5); // the query embedded by v1 too, like the stored vectors
  });

  it('pins the dimensions an embedder first produced', async () => {
    let size = 3;
    const learning = {
      name: 'learning',
      dimensions: undefined,
      embed: async (texts: string[]) => texts.map(() => new Float32Array(size).fill(1)),
    };
    const other = testEngine(`${temp.dir}/learning`, { embedder: learning });
    const learned = await other.open('idx');
    await learned.upsert('', [{ id: '1', content: { t: 'x' } }], NO_LIMIT);
    size = 4;
    const error = await rejection(learned.upsert('', [{ id: '2', content: { t: 'y' } }], NO_LIMIT));
    expect([error.code, error.message]).toEqual([
      'internal_error',
      expect.stringContaining('produced embeddings of 4 dimensions'),
    ]);
    expect((await learned.info()).vectorCount).toBe(1);
    await other.close();
  });

  it('embeds no query for a full-text search (semanticWeight 0), and each hybrid query once', async () => {
    const embedded: string[] = [];
    const counting = {
      name: 'counting',
      dimensions: 3,
      embed: async (texts: string[]) => {
        embedded.push(...texts);
        return texts.map((text) => Float32Array.from([text.length, 1, 1]));
      },
    };
    const other = testEngine(`${temp.dir}/counting`, { embedder: counting });
    const counted = await other.open('idx');
    await counted.upsert(
      '',
      [
        { id: 'a', content: { t: 'apple pie' } },
        { id: 'b', content: { t: 'banana' } },
      ],
      NO_LIMIT,
    );
    embedded.length = 0;
    const fullText = await counted.search('', searchRequest('apple', { semanticWeight: 0 }));
    expect(fullText.hits.map((hit) => hit.id)).toEqual(['a']);
    expect(embedded).toEqual([]);
    const hybrid = await counted.search('', searchRequest('apple', { semanticWeight: 0.5 }));
    expect(hybrid.hits[0].id).toBe('a');
    expect(embedded).toEqual(['apple']);
    await other.close();
  });

  it('persists across close/reopen, reusing the HNSW file, and rebuilds a deleted or corrupt one', async () => {
    const docs = Array.from({ length: 300 }, (_, i) => ({
      id: `d${i}`,
      content: { text: `document number ${i} about topic ${i % 7}` },
    }));
    await index.upsert('', docs, NO_LIMIT);
    await indexed(index);
    await index.delete('', { ids: ['d5'] });
    await engine.close();
    const files = [0, 1].map((i) => path.join(temp.dir, 'indexes', 'idx', `vectors-1.${i}-of-2.hnsw`));
    const [file] = files;
    expect(files.map((segment) => fs.existsSync(segment))).toEqual([true, true]);

    const reopen = async () => {
      const logs: object[] = [];
      engine = testEngine(temp.dir, {
        logger: { info: (o) => logs.push(o), warn: (o) => logs.push(o), error: (o) => logs.push(o) },
      });
      index = await engine.open('idx');
      const info = await index.info();
      const hits = (await index.search('', searchRequest('document number 42', { semanticWeight: 1, topK: 3 }))).hits;
      return { info, logs, hits };
    };
    const reused = await reopen();
    expect(reused.info.pendingVectorCount).toBe(0); // everything came from the file
    expect(reused.logs).toEqual([]);
    expect(reused.hits[0].id).toBe('d42');
    expect((await index.fetch('', { ids: ['d5'] }, IDS_ONLY))[0]).toBeNull();
    await engine.close();

    for (const segment of files) fs.rmSync(segment);
    const rebuilt = await reopen();
    expect(rebuilt.info.vectorCount).toBe(299);
    expect(rebuilt.info.pendingVectorCount).toBeGreaterThan(0); // rebuilt from SQLite in the background...
    expect(rebuilt.hits[0].id).toBe('d42'); // ...and searchable meanwhile
    await indexed(index);
    await engine.close();
    expect(fs.existsSync(file)).toBe(true);

    fs.writeFileSync(file, 'garbage');
    const corrupt = await reopen();
    expect(corrupt.logs).toEqual([expect.objectContaining({ file })]);
    expect(corrupt.hits[0].id).toBe('d42');
  });

  it('drops an index with all its files', async () => {
    await index.upsert('', [{ id: '1', content: { t: 'x' } }], NO_LIMIT);
    await engine.drop('idx');
    expect(fs.existsSync(path.join(temp.dir, 'indexes', 'idx'))).toBe(false);
    // Index ids are never reused: a late call on a dropped index must not re-create its files.
    expect((await rejection(index.info())).code).toBe('index_not_found');
    expect(
      (await rejection((await engine.open('idx')).upsert('', [{ id: '2', content: { t: 'y' } }], NO_LIMIT))).code,
    ).toBe('index_not_found');
    expect(fs.existsSync(path.join(temp.dir, 'indexes', 'idx'))).toBe(false);
    expect((await rejection(engine.open('../evil'))).code).toBe('invalid_request');
  });
});

describe('embedded engine with many indexes', () => {
  it('keeps at most maxOpenIndexes idle indexes open, describes closed ones, and loses nothing', async () => {
    const temp = tempDir();
    const engine = testEngine(temp.dir, { maxOpenIndexes: 3 });
    try {
      for (let i = 0; i < 12; i++) {
        const index = await engine.open(`idx${i}`);
        await index.upsert(
          '',
          [
            { id: `d${i}`, content: { t: `text ${i}` } },
            { id: 'shared', content: { t: 'x' } },
          ],
          NO_LIMIT,
        );
        // idx0 is indexed before it closes (an index closed before then has its writes pending).
        if (i === 0) await indexed(index);
      }
      expect((await engine.stats()).openIndexes).toBe(3);
      // idx0 was closed long ago: described from its file, without opening it again.
      expect(await engine.describe('idx0')).toEqual({
        vectorCount: 2,
        pendingVectorCount: 0,
        indexSize: expect.any(Number),
      });
      expect((await engine.describe('idx0')).indexSize).toBeGreaterThan(0);
      expect((await engine.stats()).openIndexes).toBe(3);
      expect(await engine.describe('never-written')).toEqual({ vectorCount: 0, pendingVectorCount: 0, indexSize: 0 });
      for (let i = 0; i < 12; i++) {
        const hits = (await (await engine.open(`idx${i}`)).search('', searchRequest(`text ${i}`, { topK: 1 }))).hits;
        expect(hits.map((hit) => hit.id)).toEqual([`d${i}`]);
      }
      expect((await engine.stats()).openIndexes).toBe(3);
      expect(fs.existsSync(path.join(temp.dir, 'indexes', 'never-written'))).toBe(false);
    } finally {
      await engine.close();
      temp.remove();
    }
  });
});
