import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocumentInput, IndexEngine, SearchEngine } from '../contract.js';
import type { Enricher, Reranker } from '../providers/provider-types.js';
import { indexed, NO_LIMIT, rejection, searchRequest, tempDir, testEngine } from '../test-fixtures.js';

const WORDS = [
  'alpha',
  'bravo',
  'charlie',
  'delta',
  'echo',
  'foxtrot',
  'golf',
  'hotel',
  'india',
  'juliet',
  'kilo',
  'lima',
];

/** Deterministic documents: `group` = i % groups, a few words picked by i. */
function corpus(count: number, groups: number): DocumentInput[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `doc-${i}`,
    content: {
      title: `${WORDS[i % 12]} ${WORDS[(i * 7) % 12]} item ${i}`,
      body: `${WORDS[(i * 5) % 12]} ${WORDS[(i * 3) % 12]} ${WORDS[(i * 11) % 12]} number${i % 97}`,
      group: i % groups,
      n: i,
    },
    metadata: { even: i % 2 === 0 },
  }));
}

describe('hybrid search', () => {
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

  it('weights full-text and vector scores: w=0 keyword first, w=1 vector first', async () => {
    await index.upsert(
      '',
      [
        // Contains the keyword once, diluted by many other words: strong BM25, weak vector.
        { id: 'keyword', content: { text: 'apple orchard tractor harvest weather season farmers market prices' } },
        // No word stemming to "apple", but spelled almost the same: no BM25 match, strong vector.
        { id: 'lexical', content: { text: 'applet aple' } },
        { id: 'unrelated', content: { text: 'submarine periscope' } },
      ],
      NO_LIMIT,
    );
    const ids = async (semanticWeight: number) =>
      (await index.search('', searchRequest('apple', { semanticWeight }))).hits.map((hit) => hit.id);
    expect(await ids(0)).toEqual(['keyword']); // only keyword matches
    expect((await ids(1)).slice(0, 2)).toEqual(['lexical', 'keyword']);
    expect(await ids(1)).toHaveLength(3); // vector search returns every neighbour
    for (const w of [0, 0.3, 0.75, 1]) {
      for (const hit of (await index.search('', searchRequest('apple', { semanticWeight: w }))).hits) {
        expect(hit.score).toBeGreaterThanOrEqual(0);
        expect(hit.score).toBeLessThanOrEqual(1);
      }
    }
    const [best] = (await index.search('', searchRequest('apple', { semanticWeight: 0 }))).hits;
    expect(best.score).toBe(1); // full-text scores are relative to the best match
  });

  it('a hybrid search ranks full text by the query expanded from its best matches; w = 0 is plain BM25', async () => {
    const sailing = Array.from({ length: 8 }, (_, i) => ({
      id: `race-${i}`,
      content: { text: `regatta regatta sailing yacht harbour crew spinnaker ${WORDS[i]}` },
    }));
    await index.upsert(
      '',
      [
        // Equal for the word "regatta" alone (one occurrence, same length): the earlier one would win the tie.
        { id: 'decoy', content: { text: 'regatta mentioned beside bicycle tyre saddle pedal chain gear' } },
        { id: 'target', content: { text: 'regatta mentioned beside sailing yacht harbour crew spinnaker jib' } },
        ...sailing,
        { id: 'also-1', content: { text: 'regatta results posted on paper notices' } },
        { id: 'also-2', content: { text: 'regatta dinner served in the old clubhouse' } },
        // Shares the feedback's vocabulary but not the user's word: the expansion scores it 0.
        { id: 'unmatched', content: { text: 'sailing yacht harbour crew spinnaker sailing yacht harbour' } },
      ],
      NO_LIMIT,
    );
    // Every vector alike: the vector side cannot reorder anything, so the hybrid order is full text's.
    const flat = testEngine(join(temp.dir, 'flat'), {
      embedder: { name: 'flat', dimensions: 4, embed: async (texts) => texts.map(() => Float32Array.of(1, 0, 0, 0)) },
    });
    const flatIndex = await flat.open('flat');
    await flatIndex.upsert(
      '',
      (await index.range('', { cursor: '', limit: 100, includeData: true, includeMetadata: false })).documents.map(
        ({ id, content }) => ({ id, content: content! }),
      ),
      NO_LIMIT,
    );
    const ids = async (target: IndexEngine, semanticWeight: number) =>
      (await target.search('', searchRequest('regatta', { semanticWeight, topK: 20, includeData: false }))).hits.map(
        (hit) => hit.id,
      );
    const hybrid = await ids(flatIndex, 0.5);
    await flat.close();
    expect(hybrid.indexOf('target')).toBeLessThan(hybrid.indexOf('decoy'));
    expect(hybrid.at(-1)).toBe('unmatched');
    const plain = await ids(index, 0);
    expect(plain).toHaveLength(12);
    expect(plain).not.toContain('unmatched');
    expect(plain.indexOf('decoy')).toBeLessThan(plain.indexOf('target'));
  });

  it('with a filter, full-text scores are relative to the best match the filter lets through', async () => {
    await index.upsert(
      '',
      [
        { id: 'strong', content: { t: 'apple apple apple', kept: false } },
        { id: 'weak', content: { t: 'apple pie with cream and cinnamon', kept: true } },
        {
          id: 'weaker',
          content: { t: 'apple pie with cream, cinnamon, nutmeg, sugar and butter', kept: true },
        },
      ],
      NO_LIMIT,
    );
    const hits = async (filter?: string) =>
      (await index.search('', searchRequest('apple', { semanticWeight: 0, filter }))).hits;
    const unfiltered = await hits();
    expect(unfiltered.map((hit) => hit.id)).toEqual(['strong', 'weak', 'weaker']);
    expect(unfiltered[0].score).toBe(1);
    expect(unfiltered[1].score).toBeLessThan(1);
    const filtered = await hits('kept = true');
    expect(filtered.map((hit) => hit.id)).toEqual(['weak', 'weaker']);
    expect(filtered[0].score).toBe(1);
    expect(filtered[1].score / filtered[0].score).toBeCloseTo(unfiltered[2].score / unfiltered[1].score, 6);
  });

  it('makes documents searchable as soon as upsert returns, before indexing', async () => {
    await engine.close();
    engine = testEngine(temp.dir, { indexingBatchSize: 1 });
    index = await engine.open('idx');
    const docs = corpus(2000, 10);
    await index.upsert('', docs, NO_LIMIT);
    const query = `${docs[1999].content.title} ${docs[1999].content.body}`;
    const { hits } = await index.search('', searchRequest(query, { semanticWeight: 1, topK: 1 }));
    // Inserted one at a time, the last document is still waiting for a graph when it is found.
    expect((await index.info()).pendingVectorCount).toBeGreaterThan(1000);
    expect(hits[0].id).toBe('doc-1999');
    await indexed(index);
    const after = await index.search('', searchRequest(query, { semanticWeight: 1, topK: 1 }));
    expect(after.hits[0].id).toBe('doc-1999');
  });

  it('never returns deleted or replaced versions', async () => {
    await index.upsert(
      '',
      [
        { id: 'a', content: { t: 'zebra crossing' } },
        { id: 'b', content: { t: 'zebra stripes' } },
      ],
      NO_LIMIT,
    );
    await indexed(index);
    await index.upsert('', [{ id: 'a', content: { t: 'penguin colony' } }], NO_LIMIT);
    await index.delete('', { ids: ['b'] });
    for (const semanticWeight of [0, 0.5, 1]) {
      const { hits } = await index.search('', searchRequest('zebra crossing', { semanticWeight }));
      expect(hits.filter((hit) => hit.id === 'b')).toEqual([]);
      for (const hit of hits) expect(hit.content).toEqual({ t: 'penguin colony' });
    }
  });

  it('returns topK matches for selective and broad filters at a few thousand documents', async () => {
    for (let start = 0; start < 3000; start += 500)
      await index.upsert('', corpus(3000, 500).slice(start, start + 500), NO_LIMIT);
    await indexed(index);
    const search = (filter: string, topK: number, semanticWeight = 0.5) =>
      index.search('', searchRequest('alpha bravo', { filter, topK, semanticWeight, includeData: true }));

    const selective = await search('group = 13', 5); // 6 documents match
    expect(selective.hits).toHaveLength(5);
    for (const hit of selective.hits) expect(hit.content!.group).toBe(13);
    expect((await search('group = 13', 10)).hits).toHaveLength(6);
    expect((await search('group = 13', 10, 1)).hits).toHaveLength(6);

    const broad = await search('n >= 500 AND @metadata.even = true', 40, 1); // 1250 matches
    expect(broad.hits).toHaveLength(40);
    for (const hit of broad.hits) expect(Number(hit.id.slice(4)) % 2).toBe(0);
    const huge = await search('n >= 100', 50, 1); // 2900 matches: the HNSW path with a label filter
    expect(huge.hits).toHaveLength(50);
    for (const hit of huge.hits) expect(hit.content!.n as number).toBeGreaterThanOrEqual(100);
    expect((await search("group = 13 AND title GLOB 'nothing*'", 5)).hits).toEqual([]);
  });

  it('omits content and metadata unless requested and validates the request', async () => {
    await index.upsert('', [{ id: 'a', content: { t: 'hello world' }, metadata: { m: 1 } }], NO_LIMIT);
    const [bare] = (await index.search('', searchRequest('hello', { includeData: false, includeMetadata: false })))
      .hits;
    expect(Object.keys(bare).sort()).toEqual(['id', 'score']);
    const [full] = (await index.search('', searchRequest('hello'))).hits;
    expect(full).toMatchObject({ id: 'a', content: { t: 'hello world' }, metadata: { m: 1 } });
    // Text that would be FTS5 syntax is just text.
    const odd = await index.search('', searchRequest('"hello" AND (NEAR* OR ^world -x:', { semanticWeight: 0 }));
    expect(odd.hits.map((hit) => hit.id)).toEqual(['a']);
    expect((await rejection(index.search('', searchRequest('x', { topK: 0 })))).code).toBe('invalid_request');
    expect((await rejection(index.search('', searchRequest('x', { semanticWeight: 1.5 })))).code).toBe(
      'invalid_request',
    );
    expect((await rejection(index.search('', searchRequest(' ')))).code).toBe('invalid_request');
    const filterError = await rejection(index.search('', searchRequest('x', { filter: "t = 'a' AND" })));
    expect([filterError.code, filterError.message]).toEqual(['invalid_filter', expect.stringContaining('position 11')]);
  });

  it('reranks a window of candidates and reports how many', async () => {
    await index.upsert('', corpus(80, 4), NO_LIMIT);
    const calls: number[] = [];
    const reverse: Reranker = {
      rerank: async (_query, docs) => {
        calls.push(docs.length);
        return docs.map((_, i) => i / docs.length); // the first-stage order, reversed
      },
    };
    await engine.close();
    engine = testEngine(temp.dir, { reranker: reverse });
    index = await engine.open('idx');
    const plain = await index.search('', searchRequest('alpha item', { topK: 5 }));
    const reranked = await index.search('', searchRequest('alpha item', { topK: 5, reranking: true }));
    expect(plain.rerankedDocuments).toBe(0);
    expect(reranked.rerankedDocuments).toBe(50);
    expect(calls).toEqual([50]);
    expect(reranked.hits.map((hit) => hit.id)).not.toEqual(plain.hits.map((hit) => hit.id));
    expect(reranked.hits[0].score).toBeCloseTo(49 / 50);

    const builtin = testEngine(temp.dir, { dataDir: `${temp.dir}/b` });
    const other = await builtin.open('idx');
    await other.upsert(
      '',
      [
        { id: 'y', content: { t: 'bravo charlie alpha' } },
        { id: 'x', content: { t: 'alpha bravo charlie' } },
      ],
      NO_LIMIT,
    );
    const result = await other.search('', searchRequest('alpha bravo', { reranking: true, semanticWeight: 0 }));
    expect(result.rerankedDocuments).toBe(2);
    expect(result.hits[0].id).toBe('x'); // same words, same length: the adjacent pair decides
    await builtin.close();
  });

  it('enriches the query from the namespace vocabulary, optionally keeping the original', async () => {
    await index.upsert(
      '',
      [
        { id: 's', content: { t: 'search engine' } },
        { id: 'b', content: { t: 'banana bread' } },
      ],
      NO_LIMIT,
    );
    const keyword = (query: string, inputEnrichment: boolean) =>
      index.search('', searchRequest(query, { semanticWeight: 0, inputEnrichment }));
    expect((await keyword('serach', false)).hits).toEqual([]);
    expect((await keyword('serach', true)).hits.map((hit) => hit.id)).toEqual(['s']);

    const fixed: Enricher = { expand: async () => 'banana' };
    await engine.close();
    engine = testEngine(temp.dir, { enricher: fixed });
    index = await engine.open('idx');
    const ids = async (keepOriginalQuery: boolean) =>
      (
        await index.search('', searchRequest('search', { semanticWeight: 0, inputEnrichment: true, keepOriginalQuery }))
      ).hits
        .map((hit) => hit.id)
        .sort();
    expect(await ids(false)).toEqual(['b']);
    expect(await ids(true)).toEqual(['b', 's']);
  });
});
