import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocumentInput, SearchEngine } from '../contract.js';
import { createBuiltinEmbedder } from '../providers/builtin-embedder.js';
import type { Embedder } from '../providers/provider-types.js';
import { indexed, NO_LIMIT, searchRequest, tempDir, testEngine } from '../test-fixtures.js';
import { DocumentStore } from './document-store.js';
import { databaseFile, indexFolder } from './index-files.js';

/** The builtin embedder, counting the documents it embeds and the corpus size each call saw. */
function countingEmbedder(): Embedder & { documents: number; corpusSizes: number[] } {
  const builtin = createBuiltinEmbedder();
  const counting = {
    name: builtin.name,
    dimensions: builtin.dimensions,
    documents: 0,
    corpusSizes: [] as number[],
    embed: builtin.embed.bind(builtin),
    embedTerms: (
      docs: Parameters<NonNullable<Embedder['embedTerms']>>[0],
      stats?: Parameters<Embedder['embed']>[1],
    ) => {
      counting.documents += docs.length;
      counting.corpusSizes.push(stats?.documentCount ?? 0);
      return builtin.embedTerms!(docs, stats);
    },
  };
  return counting;
}

function docs(from: number, count: number, word: string): DocumentInput[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `d${from + i}`,
    content: { text: `${word} number ${from + i}` },
  }));
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

describe('writes acknowledged before they are indexed (in-process embedder)', () => {
  let temp: ReturnType<typeof tempDir>;
  let engine: SearchEngine;
  let embedder: ReturnType<typeof countingEmbedder>;

  beforeEach(() => {
    temp = tempDir();
    embedder = countingEmbedder();
  });
  afterEach(async () => {
    await engine.close();
    temp.remove();
  });

  it('acknowledges a write once stored, and the next search sees it, by full text and by vector', async () => {
    engine = testEngine(temp.dir, { embedder });
    const index = await engine.open('idx');
    await index.upsert('', docs(0, 50, 'walrus'), NO_LIMIT);
    await index.upsert('', docs(50, 50, 'narwhal'), NO_LIMIT);
    expect(embedder.documents).toBe(0); // stored, not yet embedded
    expect((await index.fetch('', { ids: ['d7'] }, { includeData: true, includeMetadata: false }))[0]?.id).toBe('d7');

    const byText = await index.search('', searchRequest('narwhal', { topK: 100, semanticWeight: 0 }));
    expect(byText.hits.map((hit) => hit.id).sort()).toEqual(
      docs(50, 50, '')
        .map((doc) => doc.id)
        .sort(),
    );
    const byVector = await index.search('', searchRequest('walrus number 3', { topK: 1, semanticWeight: 1 }));
    expect(byVector.hits[0].id).toBe('d3');
    expect(embedder.documents).toBe(100);
    // The full-text index was built from SQLite with both writes in it: each counts once.
    expect(embedder.corpusSizes).toEqual([100, 100]);
    await index.upsert('', docs(100, 10, 'seal'), NO_LIMIT);
    await index.search('', searchRequest('seal', { topK: 1 }));
    expect(embedder.corpusSizes).toEqual([100, 100, 110]); // built already: the namespace plus the write
    await indexed(index);
    expect((await index.info()).vectorCount).toBe(110);
  });

  it('never indexes a version replaced or deleted while it waited, and leaves no vector behind', async () => {
    engine = testEngine(temp.dir, { embedder });
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
    expect(embedder.documents).toBe(0);

    for (const [query, expected] of [
      ['apple', []],
      ['cherry', []],
      ['banana', ['a']],
    ] as const) {
      const hits = (await index.search('', searchRequest(query, { topK: 10, semanticWeight: 0 }))).hits;
      expect(hits.map((hit) => hit.id)).toEqual(expected);
    }
    expect(embedder.documents).toBe(1); // only the live version of a
    await indexed(index);
    await engine.close();
    expect(storedCounts(temp.dir)).toEqual({ documents: 1, embeddings: 1, unembeddedNoted: false });
  });

  it('indexes at the next open the writes acknowledged before a stop', async () => {
    engine = testEngine(temp.dir, { embedder });
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

    engine = testEngine(temp.dir, { embedder: countingEmbedder() });
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
    engine = testEngine(temp.dir);
    const rebuilt = await (await engine.open('idx')).search('', query);
    expect(rebuilt.hits.map((hit) => [hit.id, hit.score])).toEqual(text.hits.map((hit) => [hit.id, hit.score]));
  });

  it('retries a write whose indexing failed, without a reopen, and reports it pending meanwhile', async () => {
    let failures = 0;
    const failing = countingEmbedder();
    const embedTerms = failing.embedTerms!;
    failing.embedTerms = (docs, stats) => {
      if (failures-- > 0) throw new Error('embedder unavailable');
      return embedTerms(docs, stats);
    };
    engine = testEngine(temp.dir, { embedder: failing });
    const index = await engine.open('idx');
    await index.upsert('', docs(0, 5, 'walrus'), NO_LIMIT);
    const found = async (word: string) =>
      (await index.search('', searchRequest(word, { topK: 10, semanticWeight: 0 }))).hits.map((hit) => hit.id).sort();
    expect(await found('walrus')).toHaveLength(5); // the namespace's full-text index is built now
    await indexed(index);

    failures = 1;
    await index.upsert('', docs(5, 3, 'narwhal'), NO_LIMIT);
    // A search is not held up by the failed batch: the write is stored (and fetchable) but not in
    // the indexes yet.
    expect(await found('narwhal')).toEqual([]);
    expect(failures).toBe(0); // one attempt so far, which failed
    expect((await index.fetch('', { ids: ['d6'] }, { includeData: false, includeMetadata: false }))[0]?.id).toBe('d6');
    expect(await index.info()).toMatchObject({ vectorCount: 8, pendingVectorCount: 3 }); // documents, and those waiting
    // Tried again a second later, in the same process.
    await indexed(index, 10_000);
    expect(await found('narwhal')).toEqual(['d5', 'd6', 'd7']);
    expect(await index.info()).toMatchObject({ vectorCount: 8, pendingVectorCount: 0 });
    expect(failing.documents).toBe(8);
    await engine.close();
    expect(storedCounts(temp.dir)).toEqual({ documents: 8, embeddings: 8, unembeddedNoted: false });
  });

  it('embeds before acknowledging once the backlog is at its limit, and always with a limit of 0', async () => {
    engine = testEngine(temp.dir, { embedder, indexingBacklog: 100 });
    const index = await engine.open('idx');
    await index.upsert('', docs(0, 150, 'walrus'), NO_LIMIT); // below the limit when written
    expect(embedder.documents).toBe(0);
    await index.upsert('', docs(150, 10, 'narwhal'), NO_LIMIT); // 150 waiting: embedded first
    expect(embedder.documents).toBe(10);
    expect((await index.search('', searchRequest('walrus', { topK: 200, semanticWeight: 0 }))).hits).toHaveLength(150);
    await engine.close();

    const synchronous = countingEmbedder();
    engine = testEngine(temp.dir, { embedder: synchronous, indexingBacklog: 0 });
    await (await engine.open('idx')).upsert('', docs(0, 5, 'seal'), NO_LIMIT);
    expect(synchronous.documents).toBe(5);
  });
});
