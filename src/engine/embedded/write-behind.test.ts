import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocumentInput, SearchEngine } from '../contract.js';
import { indexed, NO_LIMIT, searchRequest, tempDir, testEngine } from '../test-fixtures.js';
import { DocumentStore } from './document-store.js';
import { databaseFile, indexFolder, removeFileParts } from './index-files.js';

function docs(from: number, count: number, word: string): DocumentInput[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `d${from + i}`,
    content: { text: `${word} number ${from + i}` },
  }));
}

/** Ids of the stored documents that have a vector. */
function embeddedIds(dataDir: string): string[] {
  const db = new Database(databaseFile(indexFolder(dataDir, 'idx')), { readonly: true });
  try {
    return db
      .prepare('SELECT d.id FROM documents d JOIN embeddings e ON e.label = d.label ORDER BY d.id')
      .pluck(true)
      .all() as string[];
  } finally {
    db.close();
  }
}

/** Rows of the index's SQLite file: documents, vectors, and whether it notes documents without one. */
function storedCounts(dataDir: string): { documents: number; embeddings: number; unembeddedNoted: boolean } {
  const db = new Database(databaseFile(indexFolder(dataDir, 'idx')), { readonly: true });
  try {
    const count = (sql: string) => (db.prepare(sql).pluck(true).get() as number) ?? 0;
    return {
      documents: count('SELECT count(*) FROM documents'),
      embeddings: count('SELECT count(*) FROM embeddings'),
      unembeddedNoted: count("SELECT count(*) FROM meta WHERE key = 'unembedded'") === 1,
    };
  } finally {
    db.close();
  }
}

describe('writes acknowledged before their vectors are made (builtin embedder)', () => {
  let temp: ReturnType<typeof tempDir>;
  let engine: SearchEngine;

  beforeEach(() => {
    temp = tempDir();
  });
  afterEach(async () => {
    await engine.close();
    temp.remove();
  });

  /** Full-text hits as (id, score), over a namespace whose statistics must count every document once. */
  const scored = async (query: string) =>
    (await (await engine.open('idx')).search('', searchRequest(query, { topK: 100, semanticWeight: 0 }))).hits.map(
      (hit) => [hit.id, hit.score],
    );

  it('acknowledges a write once stored, and the next search sees it, by full text and by vector', async () => {
    engine = testEngine(temp.dir);
    const index = await engine.open('idx');
    await index.upsert('', docs(0, 50, 'walrus'), NO_LIMIT);
    await index.upsert('', docs(50, 50, 'narwhal'), NO_LIMIT);
    expect((await index.fetch('', { ids: ['d7'] }, { includeData: true, includeMetadata: false }))[0]?.id).toBe('d7');

    const byText = await index.search('', searchRequest('narwhal', { topK: 100, semanticWeight: 0 }));
    expect(byText.hits.map((hit) => hit.id).sort()).toEqual(
      docs(50, 50, '')
        .map((doc) => doc.id)
        .sort(),
    );
    const byVector = await index.search('', searchRequest('walrus number 3', { topK: 1, semanticWeight: 1 }));
    expect(byVector.hits[0].id).toBe('d3');
    await index.upsert('', docs(100, 10, 'seal'), NO_LIMIT);
    expect((await index.search('', searchRequest('seal', { topK: 20, semanticWeight: 0 }))).hits).toHaveLength(10);
    await indexed(index);
    expect(await index.info()).toMatchObject({ vectorCount: 110, pendingVectorCount: 0 });
    const live = await scored('walrus narwhal seal number');
    await engine.close();
    expect(storedCounts(temp.dir)).toEqual({ documents: 110, embeddings: 110, unembeddedNoted: false });

    // Statistics as if built from SQLite in one go (nothing counted twice): the same scores.
    await removeFileParts(`${indexFolder(temp.dir, 'idx')}/fulltext-1.snap`);
    engine = testEngine(temp.dir);
    expect(await scored('walrus narwhal seal number')).toEqual(live);
  });

  it('never indexes a version replaced or deleted while it waited, and leaves no vector behind', async () => {
    engine = testEngine(temp.dir);
    const index = await engine.open('idx');
    await index.upsert(
      '',
      [
        { id: 'a', content: { text: 'apple' } },
        { id: 'b', content: { text: 'cherry' } },
      ],
      NO_LIMIT,
    );
    await index.upsert('', [{ id: 'a', content: { text: 'banana' } }], NO_LIMIT);
    expect(await index.delete('', { ids: ['b'] })).toBe(1);

    for (const [query, expected] of [
      ['apple', []],
      ['cherry', []],
      ['banana', ['a']],
    ] as const) {
      const hits = (await index.search('', searchRequest(query, { topK: 10, semanticWeight: 0 }))).hits;
      expect(hits.map((hit) => hit.id)).toEqual(expected);
    }
    await indexed(index);
    await engine.close();
    expect(storedCounts(temp.dir)).toEqual({ documents: 1, embeddings: 1, unembeddedNoted: false });
  });

  it('indexes at the next open the writes acknowledged before a stop', async () => {
    engine = testEngine(temp.dir);
    let index = await engine.open('idx');
    await index.upsert('', docs(0, 10, 'walrus'), NO_LIMIT);
    await indexed(index);
    await engine.close();
    // As a crash right after acknowledging leaves them: stored without vectors.
    const store = new DocumentStore(databaseFile(indexFolder(temp.dir, 'idx')));
    const pending = docs(10, 30, 'narwhal').map((doc) => ({
      id: doc.id,
      content: JSON.stringify(doc.content),
      metadata: null,
    }));
    expect(store.writeUnembedded('', pending, -1).added).toHaveLength(30);
    store.close();
    expect(storedCounts(temp.dir)).toEqual({ documents: 40, embeddings: 10, unembeddedNoted: true });

    engine = testEngine(temp.dir);
    // Described while closed: the documents without a vector are pending.
    expect(await engine.describe('idx')).toMatchObject({ vectorCount: 40, pendingVectorCount: 30 });
    index = await engine.open('idx');
    const hits = (await index.search('', searchRequest('narwhal number 12', { topK: 1, semanticWeight: 1 }))).hits;
    expect(hits.map((hit) => hit.id)).toEqual(['d12']);
    const query = searchRequest('narwhal number 12', { topK: 100, semanticWeight: 0 });
    const text = await index.search('', query);
    expect(text.hits).toHaveLength(40); // "number" is in every document
    await indexed(index);
    await engine.close();
    expect(storedCounts(temp.dir)).toEqual({ documents: 40, embeddings: 40, unembeddedNoted: false });

    // Full-text statistics as if built from SQLite in one go (nothing counted twice): same scores.
    await removeFileParts(`${indexFolder(temp.dir, 'idx')}/fulltext-1.snap`);
    engine = testEngine(temp.dir);
    const rebuilt = await (await engine.open('idx')).search('', query);
    expect(rebuilt.hits.map((hit) => [hit.id, hit.score])).toEqual(text.hits.map((hit) => [hit.id, hit.score]));
  });

  it('makes the vectors before acknowledging past the backlog limit, and always with a limit of 0', async () => {
    engine = testEngine(temp.dir, { indexingBacklog: 100 });
    const index = await engine.open('idx');
    await index.upsert('', docs(0, 150, 'walrus'), NO_LIMIT); // past the limit with its own documents
    expect(embeddedIds(temp.dir)).toHaveLength(150);
    expect((await index.search('', searchRequest('walrus', { topK: 200, semanticWeight: 0 }))).hits).toHaveLength(150);
    await engine.close();

    engine = testEngine(temp.dir, { indexingBacklog: 0 });
    await (await engine.open('idx')).upsert('', docs(200, 5, 'seal'), NO_LIMIT);
    expect(embeddedIds(temp.dir)).toEqual(expect.arrayContaining(docs(200, 5, '').map((doc) => doc.id)));
  });
});
