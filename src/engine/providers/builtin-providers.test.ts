import { describe, expect, it } from 'vitest';
import { FullTextIndex } from '../embedded/full-text/full-text-index.js';
import { dot } from '../embedded/vector-math.js';
import { analyzeFields, termTrigrams } from '../query/analyzer.js';
import { createBuiltinEmbedder } from './builtin-embedder.js';
import { createBuiltinEmbedderV1 } from './builtin-embedder-v1.js';
import { createBuiltinEnricher, editDistance } from './builtin-enricher.js';
import { createBuiltinReranker } from './builtin-reranker.js';
import type { Vocabulary } from './provider-types.js';

/** A vocabulary whose candidates are every word (the enricher must verify them itself). */
const vocabularyOf = (terms: string[]): Vocabulary => ({
  has: (term) => terms.includes(term),
  candidates: () => terms,
});

describe('builtin embedder', () => {
  const embedder = createBuiltinEmbedder();

  it('is deterministic, L2-normalized and 512-dimensional by default', async () => {
    const [a, b] = await embedder.embed(['Hybrid search engine', 'Hybrid search engine']);
    expect(embedder.dimensions).toBe(512);
    expect(embedder.name).toBe('builtin-hash-v2/512');
    expect(a).toHaveLength(512);
    expect(Array.from(a)).toEqual(Array.from(b));
    expect(dot(a, a)).toBeCloseTo(1, 5);
    expect((await createBuiltinEmbedder(64).embed(['x']))[0]).toHaveLength(64);
  });

  it('scores a misspelling closer than unrelated words', async () => {
    const [search, typo, unrelated, other] = await embedder.embed(['search', 'serach', 'banana', 'elephant']);
    expect(dot(search, typo)).toBeGreaterThan(0.3);
    expect(dot(search, typo)).toBeGreaterThan(dot(search, unrelated) + 0.2);
    expect(dot(search, typo)).toBeGreaterThan(dot(search, other) + 0.2);
  });

  it('scores shared words above disjoint texts and folds case and accents', async () => {
    const [a, b, c, d] = await embedder.embed([
      'fast vector search',
      'vector search engine',
      'cooking pasta at home',
      'FAST Véctor SEARCH',
    ]);
    expect(dot(a, b)).toBeGreaterThan(dot(a, c) + 0.3);
    expect(dot(a, d)).toBeCloseTo(1, 5);
  });

  it('weights words by the namespace statistics: a word in every document counts for little', async () => {
    // 1000 documents; "telescope" and "mitochondria" occur in 3, every other word in all of them.
    const rare = ['telescop', 'mitochondria'];
    const rareTrigrams = new Set(rare.flatMap((term) => termTrigrams(term)));
    const statistics = {
      documentCount: 1000,
      documentFrequency: (term: string) => (rare.includes(term) ? 3 : 1000),
      trigramFrequency: (trigram: string) => (rareTrigrams.has(trigram) ? 3 : 1000),
    };
    const texts = ['study of the telescope', 'study of mitochondria'];
    const [plainA, plainB] = await embedder.embed(texts);
    const [weightedA, weightedB] = await embedder.embed(texts, statistics);
    expect(dot(plainA, plainB)).toBeGreaterThan(0.2);
    expect(dot(weightedA, weightedB)).toBeLessThan(0.05);
  });

  it('embeds the same through the per-term fast path of a full-text index as through its plain statistics', () => {
    // Two namespaces meeting words in different orders, one of them compacted by removals: the terms'
    // memos (full-text ids, feature slots, per-call weights) must never carry one index's numbers
    // into another's answers.
    const docs = Array.from({ length: 3000 }, (_, i) => [
      `title ${i % 17} study`,
      `body words w${i % 101} w${i % 7} x${i}`,
    ]);
    const a = new FullTextIndex();
    const b = new FullTextIndex();
    docs.forEach((fields, i) => {
      a.add(i + 1, analyzeFields(fields));
      b.add(i + 1, analyzeFields(docs[docs.length - 1 - i]));
    });
    for (let label = 1; label <= 2000; label++) a.remove(label);
    const batch = docs.slice(0, 50).map((fields) => analyzeFields(fields));
    for (const index of [a, b]) {
      const plain = {
        documentCount: index.documentCount,
        documentFrequency: (term: string) => index.documentFrequency(term),
        trigramFrequency: (trigram: string) => index.trigramFrequency(trigram),
      };
      const fast = embedder.embedTerms!(batch, index).map((vector) => Array.from(vector));
      expect(fast).toEqual(embedder.embedTerms!(batch, plain).map((vector) => Array.from(vector)));
    }
  });

  it('keeps the feature slots of embedders of different sizes apart', async () => {
    // Words no other test uses, so the 64-dimension embedder is the first to give them slots.
    const texts = ['quokka zygote xylophone', 'marmalade quokka'];
    const small = createBuiltinEmbedder(64);
    const before = (await small.embed(texts)).map((vector) => Array.from(vector));
    const large = await embedder.embed(texts);
    // Its own slots span all 512 dimensions, not the 64 the other embedder used.
    for (const vector of large) expect(vector.subarray(64).some((value) => value !== 0)).toBe(true);
    expect((await small.embed(texts)).map((vector) => Array.from(vector))).toEqual(before);
    expect((await embedder.embed(texts)).map((vector) => Array.from(vector))).toEqual(large.map((v) => Array.from(v)));
  });

  it('stems its features: inflections of a word embed alike', async () => {
    const [wars, war, peace] = await embedder.embed(['star wars', 'star war', 'star peace']);
    expect(dot(wars, war)).toBeCloseTo(1, 5);
    expect(dot(wars, peace)).toBeLessThan(0.8);
  });

  it('keeps the first builtin embedder for indexes made with it', async () => {
    const v1 = createBuiltinEmbedderV1();
    expect([v1.name, v1.dimensions]).toEqual(['builtin-hash-v1/256', 256]);
    expect((await v1.embed(['x']))[0]).toHaveLength(256);
  });

  it('embeds empty text as the zero vector', async () => {
    const [empty] = await embedder.embed(['']);
    expect(dot(empty, empty)).toBe(0);
  });
});

describe('builtin reranker', () => {
  const reranker = createBuiltinReranker();

  it('prefers adjacent query words, then full coverage of the query', async () => {
    const docs = [
      { id: 'scattered', text: 'a search for many things\nsome engine parts and more text about cars' },
      { id: 'phrase', text: 'Search engine\nbuilding a search engine from scratch' },
      { id: 'partial', text: 'search tips and tricks for everyone' },
      { id: 'none', text: 'gardening in spring' },
    ];
    const scores = await reranker.rerank('search engine', docs);
    const order = docs
      .map((doc, i) => [doc.id, scores[i]] as const)
      .sort((a, b) => b[1] - a[1])
      .map(([id]) => id);
    expect(order).toEqual(['phrase', 'scattered', 'partial', 'none']);
    for (const score of scores) expect(score).toBeGreaterThanOrEqual(0);
    for (const score of scores) expect(score).toBeLessThanOrEqual(1);
    expect(await reranker.rerank('search engine', docs)).toEqual(scores);
  });

  it('weights word pairs by the namespace statistics of their rarer word', async () => {
    const docs = [
      { id: 'common', text: 'an effect treatment has with metformin at a low dosage' },
      { id: 'rare', text: 'on metformin dosage and the effect of a treatment' },
    ];
    const statistics = {
      documentCount: 1000,
      documentFrequency: (term: string) => (term === 'metformin' || term === 'dosag' ? 2 : 800),
      trigramFrequency: () => 0,
    };
    const [common, rare] = await reranker.rerank('metformin dosage effect treatment', docs, statistics);
    expect(rare).toBeGreaterThan(common);
    // Without statistics every pair weighs the same, and each document has one of the three.
    const [plainCommon, plainRare] = await reranker.rerank('metformin dosage effect treatment', docs);
    expect(plainRare).toBe(plainCommon);
  });

  it('keeps the first-stage order when no pair of the query stands together', async () => {
    const docs = [
      { id: 'first', text: 'treatment outcomes, and separately metformin', score: 0.9 },
      { id: 'second', text: 'metformin is given; treatment follows', score: 0.8 },
    ];
    const scores = await reranker.rerank('metformin treatment', docs);
    expect(scores[0]).toBeGreaterThan(scores[1]);
    expect(await reranker.rerank('metformin', docs)).toEqual([0.9, 0.8].map((score) => score / 1.1));
  });

  it('adds to the first-stage score without overturning a clear winner', async () => {
    const docs = [
      { id: 'first', text: 'alpha', score: 0.9 },
      { id: 'matching', text: 'alpha beta', score: 0.5 },
    ];
    const [first, matching] = await reranker.rerank('alpha beta', docs);
    expect(first).toBeGreaterThan(matching);
  });

  it('blends in the first-stage score', async () => {
    const docs = [
      { id: 'a', text: 'alpha', score: 0.9 },
      { id: 'b', text: 'alpha', score: 0.1 },
    ];
    const [a, b] = await reranker.rerank('alpha', docs);
    expect(a).toBeGreaterThan(b);
  });
});

describe('builtin enricher', () => {
  const enricher = createBuiltinEnricher();
  const vocabulary = vocabularyOf(['search', 'engine', 'engines', 'searching', 'elephant', 'vector', 'sector']);

  it('replaces unknown terms with the closest indexed spellings', async () => {
    expect(await enricher.expand('serach engnie', vocabulary)).toBe('search engine');
    expect(await enricher.expand('elphant serching', vocabulary)).toBe('elephant searching');
    expect(await enricher.expand('vectr', vocabulary)).toBe('vector');
    expect(await enricher.expand('xector', vocabulary)).toBe('sector vector');
  });

  it('keeps known, short, numeric and unmatched terms', async () => {
    expect(await enricher.expand('search the 2024 zzzzzz', vocabulary)).toBe('search the 2024 zzzzzz');
  });

  it('computes edit distance with transpositions and a cut-off', () => {
    expect(editDistance('serach', 'search', 2)).toBe(1);
    expect(editDistance('kitten', 'sitting', 3)).toBe(3);
    expect(editDistance('abc', 'abc', 1)).toBe(0);
    expect(editDistance('abcdef', 'uvwxyz', 2)).toBe(3);
  });
});
