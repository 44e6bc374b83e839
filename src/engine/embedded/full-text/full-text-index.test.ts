import { describe, expect, it } from 'vitest';
import { type AnalyzedQuery, analyzeFields, analyzeQuery } from '../../query/analyzer.js';
import { type CollectionStatistics, FullTextIndex, type FullTextIndexOptions } from './full-text-index.js';

/** mulberry32: a seeded generator, so the random corpora are the same on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A Zipf-like vocabulary: a few words in most documents, many rare ones. */
function corpus(size: number, seed: number): string[][] {
  const next = random(seed);
  const words = Array.from({ length: 400 }, (_, i) => `w${i}x${'abcdefgh'[i % 8]}`);
  const pick = () => words[Math.floor(words.length * next() ** 3)];
  return Array.from({ length: size }, () => {
    const title = Array.from({ length: 2 + Math.floor(next() * 4) }, pick).join(' ');
    const body = Array.from({ length: 5 + Math.floor(next() * 60) }, pick).join(' ');
    return next() < 0.5 ? [title, body] : [body];
  });
}

describe('full-text index', () => {
  it('ranks exactly as exhaustive BM25 (same top k, same scores) for many random queries', () => {
    const docs = corpus(3000, 7);
    const index = new FullTextIndex();
    for (const [i, fields] of docs.entries()) index.add(i + 1, analyzeFields(fields));
    const next = random(99);
    for (let q = 0; q < 200; q++) {
      const query = analyzeQuery(
        docs[Math.floor(next() * docs.length)][0]
          .split(' ')
          .slice(0, 1 + (q % 6))
          .join(' '),
      );
      for (const k of [1, 10, 50]) {
        expect(index.search(query, k)).toEqual(index.searchExhaustive(query, k));
      }
    }
  });

  it('resolves ties exactly: documents with equal scores rank by label, however many there are', () => {
    // A tiny vocabulary: many documents are identical or score the same for a query.
    const next = random(21);
    const words = Array.from({ length: 12 }, (_, i) => `word${'abcdefghijkl'[i]}`);
    const index = new FullTextIndex();
    for (let label = 1; label <= 3000; label++) {
      const text = Array.from({ length: 2 + Math.floor(next() * 4) }, () => words[Math.floor(next() * words.length)]);
      index.add(label, analyzeFields([text.join(' ')]));
    }
    for (let q = 0; q < 200; q++) {
      const query = analyzeQuery(Array.from({ length: 2 + (q % 5) }, () => words[Math.floor(next() * 12)]).join(' '));
      for (const k of [1, 10, 50]) expect(index.search(query, k)).toEqual(index.searchExhaustive(query, k));
    }
  });

  it('stays exact through removals, replacements and compaction', () => {
    const docs = corpus(4000, 3);
    const index = new FullTextIndex();
    for (const [i, fields] of docs.entries()) index.add(i + 1, analyzeFields(fields));
    // Remove 60%: enough to compact at least once; re-add some under new labels (new versions).
    for (let label = 1; label <= 2400; label++) expect(index.remove(label)).toBe(true);
    expect(index.remove(1)).toBe(false);
    for (let i = 0; i < 300; i++) index.add(10_000 + i, analyzeFields(docs[i]));
    expect(index.size).toBe(4000 - 2400 + 300);
    expect(index.stats().ordinals).toBeLessThan(4300);
    expect(index.has(1)).toBe(false);
    expect(index.has(10_000)).toBe(true);
    const next = random(5);
    for (let q = 0; q < 100; q++) {
      const query = analyzeQuery(docs[Math.floor(next() * docs.length)][0]);
      expect(index.search(query, 10)).toEqual(index.searchExhaustive(query, 10));
      for (const hit of index.search(query, 10)) expect(hit.label > 2400).toBe(true);
    }
    // Compaction renumbers terms; documents analyzed before it (same term objects) must not carry
    // the old numbers in: the index answers as one built from its live documents alone.
    const fresh = new FullTextIndex();
    for (let label = 2401; label <= 4000; label++) fresh.add(label, analyzeFields(docs[label - 1]));
    for (let i = 0; i < 300; i++) fresh.add(10_000 + i, analyzeFields(docs[i]));
    for (let q = 0; q < 50; q++) {
      const query = analyzeQuery(docs[Math.floor(next() * docs.length)].join(' '));
      expect(index.search(query, 10)).toEqual(fresh.search(query, 10));
    }
  });

  it('keeps each index its own term numbers when documents of several are written in turn', () => {
    const docs = corpus(600, 11);
    const [a, b, onlyA, onlyB] = [new FullTextIndex(), new FullTextIndex(), new FullTextIndex(), new FullTextIndex()];
    // b meets the vocabulary in another order than a, so the same term has different ids in each.
    for (let i = 0; i < 300; i++) {
      a.add(i + 1, analyzeFields(docs[i]));
      b.add(i + 1, analyzeFields(docs[599 - i]));
    }
    for (let i = 0; i < 300; i++) onlyA.add(i + 1, analyzeFields(docs[i]));
    for (let i = 0; i < 300; i++) onlyB.add(i + 1, analyzeFields(docs[599 - i]));
    const next = random(9);
    for (let q = 0; q < 50; q++) {
      const query = analyzeQuery(docs[Math.floor(next() * docs.length)].join(' '));
      expect(a.search(query, 10)).toEqual(onlyA.search(query, 10));
      expect(b.search(query, 10)).toEqual(onlyB.search(query, 10));
    }
  });

  it.each([
    ['its buffer', undefined],
    ['segments', { bufferDocuments: 40, bufferEntries: 4096 }],
  ])('restricts to a filter set, by direct scoring or with pruning, in %s', (_, options) => {
    const docs = corpus(6000, 11);
    const index = new FullTextIndex(options);
    for (const [i, fields] of docs.entries()) index.add(i + 1, analyzeFields(fields));
    for (const fields of docs.slice(0, 20)) {
      const query = analyzeQuery(fields[0]);
      for (const share of [0.01, 0.9]) {
        const allowed = new Set(docs.map((_, i) => i + 1).filter((label) => (label * 7919) % 1000 < share * 1000));
        const expected = index
          .searchExhaustive(query, 6000)
          .filter((hit) => allowed.has(hit.label))
          .slice(0, 10);
        expect(index.search(query, 10, allowed)).toEqual(expected);
      }
    }
  });

  it('stems words, folds diacritics, drops stop words unless the query has nothing else', () => {
    const index = new FullTextIndex();
    index.add(1, analyzeFields(['Star Wars']));
    index.add(2, analyzeFields(['Amélie']));
    index.add(3, analyzeFields(['The Lord of the Rings']));
    index.add(4, analyzeFields(['Studies of war']));
    expect(index.search(analyzeQuery('war'), 5).map((hit) => hit.label)).toEqual([1, 4]);
    expect(index.search(analyzeQuery('AMELIE'), 5).map((hit) => hit.label)).toEqual([2]);
    expect(index.search(analyzeQuery('study'), 5).map((hit) => hit.label)).toEqual([4]);
    // "of" is dropped next to "rings"; alone, "of the" still finds documents.
    expect(index.search(analyzeQuery('lord of'), 5).map((hit) => hit.label)).toEqual([3]);
    expect(
      index
        .search(analyzeQuery('of the'), 5)
        .map((hit) => hit.label)
        .sort(),
    ).toEqual([3, 4]);
  });

  it('weights a short field (a title) above the same word in a long body', () => {
    const index = new FullTextIndex();
    const filler = Array.from({ length: 40 }, (_, i) => `filler${i}`).join(' ');
    index.add(1, analyzeFields(['An unrelated title', `${filler} telescope ${filler}`]));
    index.add(2, analyzeFields(['The telescope', `${filler} mirror ${filler}`]));
    expect(index.search(analyzeQuery('telescope'), 2).map((hit) => hit.label)).toEqual([2, 1]);
  });

  it('scores given labels and suggests spellings from its own vocabulary', () => {
    const index = new FullTextIndex();
    index.add(1, analyzeFields(['clownfish live in anemones']));
    index.add(2, analyzeFields(['the coral reef']));
    const scores = index.scores(analyzeQuery('clownfish reef'), [1, 2, 3]);
    expect([...scores.keys()].sort()).toEqual([1, 2]);
    expect(index.spellingCandidates('clownfsh', 1)).toContain('clownfish');
    expect(index.spellingCandidates('anemnoes', 2)).toContain('anemones');
    expect(index.spellingCandidates('zzzz', 1)).toEqual([]);
    index.remove(1);
    expect(index.spellingCandidates('clownfsh', 1)).toEqual([]);
  });
});

/** An index of `docs` labelled from 1, its buffer as given (a small one makes many segments). */
function indexOf(docs: string[][], options?: FullTextIndexOptions): FullTextIndex {
  const index = new FullTextIndex(options);
  for (const [i, fields] of docs.entries()) index.add(i + 1, analyzeFields(fields));
  return index;
}

/** Queries of 1 to 6 words from the documents' first fields, and some whole documents (many words). */
function queries(docs: string[][], count: number, seed: number): AnalyzedQuery[] {
  const next = random(seed);
  return Array.from({ length: count }, (_, q) => {
    const fields = docs[Math.floor(next() * docs.length)];
    if (q % 5 === 4) return analyzeQuery(fields.join(' '));
    return analyzeQuery(
      fields[0]
        .split(' ')
        .slice(0, 1 + (q % 6))
        .join(' '),
    );
  });
}

const SMALL: FullTextIndexOptions = { bufferDocuments: 40, bufferEntries: 4096 };

describe('full-text index in segments', () => {
  it('answers exactly as exhaustive scoring and as an unsegmented index, across seals and merges', () => {
    const docs = corpus(4000, 13);
    const segmented = indexOf(docs, SMALL);
    const buffered = indexOf(docs);
    expect(segmented.stats().segments).toBeGreaterThan(1);
    expect(buffered.stats().segments).toBe(0);
    for (const query of queries(docs, 150, 2)) {
      for (const k of [1, 10, 50]) {
        const top = segmented.search(query, k);
        expect(top).toEqual(segmented.searchExhaustive(query, k));
        expect(top).toEqual(buffered.search(query, k));
      }
    }
    const labels = [1, 2, 3, 500, 1999, 4000, 4001];
    for (const query of queries(docs, 20, 3))
      expect(segmented.scores(query, labels)).toEqual(buffered.scores(query, labels));
  });

  it('after removals and re-additions, answers and counts as an index of its live documents alone', () => {
    const docs = corpus(4000, 23);
    const index = indexOf(docs, SMALL);
    const next = random(77);
    const removed = new Set<number>();
    while (removed.size < 2000) removed.add(1 + Math.floor(next() * 4000));
    for (const label of removed) expect(index.remove(label)).toBe(true);
    for (let i = 0; i < 400; i++) index.add(10_000 + i, analyzeFields(docs[i]));
    const live = [...index.labelSet()].sort((a, b) => a - b);
    expect(live.length).toBe(2400);
    // Removed documents go when their segments are merged or rewritten.
    expect(index.stats().ordinals).toBeLessThan(2400 + 2000 / 2);
    const fresh = new FullTextIndex(SMALL);
    for (const label of live) fresh.add(label, analyzeFields(docs[(label > 4000 ? label - 10_000 : label - 1) % 4000]));
    for (const query of queries(docs, 100, 5)) {
      for (const k of [10, 50]) {
        expect(index.search(query, k)).toEqual(index.searchExhaustive(query, k));
        expect(index.search(query, k)).toEqual(fresh.search(query, k));
      }
      for (const term of query.terms) expect(index.documentFrequency(term)).toBe(fresh.documentFrequency(term));
    }
    for (const trigram of ['#w1', 'w1x', '0xa', 'xb#']) {
      expect(index.trigramFrequency(trigram)).toBe(fresh.trigramFrequency(trigram));
    }
  });

  it('scores exactly BM25 computed directly from the analyses of its live documents', () => {
    const docs = corpus(3000, 31);
    const index = indexOf(docs, SMALL);
    for (let label = 1; label <= 3000; label += 3) index.remove(label);
    const live = docs
      .map((fields, i) => ({ label: i + 1, analysis: analyzeFields(fields) }))
      .filter((doc) => doc.label % 3 !== 1);
    const average = live.reduce((sum, doc) => sum + doc.analysis.length, 0) / live.length;
    const df = new Map<string, number>();
    for (const { analysis } of live) for (const term of analysis.terms) df.set(term.text, (df.get(term.text) ?? 0) + 1);
    for (const query of queries(docs, 40, 9)) {
      const terms = query.terms.filter((term) => df.has(term)).sort();
      const expected = live
        .map(({ label, analysis }) => {
          const norm = 1.2 * (1 - 0.75 + (0.75 * analysis.length) / average);
          let score = 0;
          for (const term of terms) {
            const at = analysis.terms.findIndex((t) => t.text === term);
            if (at < 0) continue;
            const tf = analysis.frequencies[at];
            const n = df.get(term)!;
            const idf = Math.log(1 + (live.length - n + 0.5) / (n + 0.5));
            score += (idf * tf * (1.2 + 1)) / (tf + norm);
          }
          return { label, score };
        })
        .filter((hit) => hit.score > 0)
        .sort((a, b) => b.score - a.score || a.label - b.label)
        .slice(0, 10);
      expect(index.search(query, 10)).toEqual(expected);
    }
  });

  it('weights terms, and optional terms rank only documents a selecting term matches, exactly', () => {
    const docs = corpus(3000, 41);
    const segmented = indexOf(docs, SMALL);
    const buffered = indexOf(docs);
    const analyses = docs.map((fields) => analyzeFields(fields));
    const average = analyses.reduce((sum, analysis) => sum + analysis.length, 0) / analyses.length;
    const df = new Map<string, number>();
    for (const analysis of analyses) for (const term of analysis.terms) df.set(term.text, (df.get(term.text) ?? 0) + 1);
    const next = random(5);
    const pool = [...df.keys()];
    for (const base of queries(docs, 60, 17)) {
      // The user's terms, then terms of other documents added at small weights, as an expansion adds them.
      const added = Array.from({ length: 1 + Math.floor(next() * 8) }, () => pool[Math.floor(next() * pool.length)]);
      const terms = [
        ...base.terms,
        ...added.filter((term, i) => !base.terms.includes(term) && added.indexOf(term) === i),
      ];
      const weights = terms.map((_, i) => (i < base.terms.length ? 1 : 0.05 + next() * 0.5));
      const query: AnalyzedQuery = { terms, words: terms, weights, selecting: base.terms.length };
      const weightOf = new Map(terms.map((term, i) => [term, weights[i]]));
      const expected = analyses
        .map((analysis, i) => {
          const norm = 1.2 * (1 - 0.75 + (0.75 * analysis.length) / average);
          let score = 0;
          let selected = false;
          for (const term of [...terms].sort()) {
            const at = analysis.terms.findIndex((t) => t.text === term);
            if (at < 0) continue;
            selected ||= terms.indexOf(term) < base.terms.length;
            const tf = analysis.frequencies[at];
            const n = df.get(term)!;
            score += (weightOf.get(term)! * Math.log(1 + (docs.length - n + 0.5) / (n + 0.5)) * tf * 2.2) / (tf + norm);
          }
          return { label: i + 1, score: selected ? score : 0 };
        })
        .filter((hit) => hit.score > 0)
        .sort((a, b) => b.score - a.score || a.label - b.label);
      for (const k of [1, 10, 50]) {
        const top = segmented.search(query, k);
        expect(top.map((hit) => hit.label)).toEqual(expected.slice(0, k).map((hit) => hit.label));
        for (const [i, hit] of top.entries()) expect(hit.score).toBeCloseTo(expected[i].score, 9);
        expect(top).toEqual(segmented.searchExhaustive(query, k));
        expect(top).toEqual(buffered.search(query, k));
      }
      const labels = [1, 2, 3, 500, 1999, 2500, 3000];
      const selectedOnly = new Map(
        expected.filter((hit) => labels.includes(hit.label)).map((hit) => [hit.label, hit.score] as const),
      );
      const scores = segmented.scores(query, labels);
      expect([...scores.keys()].sort((a, b) => a - b)).toEqual([...selectedOnly.keys()].sort((a, b) => a - b));
      expect(buffered.scores(query, labels)).toEqual(scores);
    }
  });

  it('takes a document with more terms than its buffer holds', () => {
    const index = new FullTextIndex(SMALL);
    const docs = corpus(300, 29);
    const huge = Array.from({ length: 6000 }, (_, i) => `huge${i}`).join(' ');
    for (const [i, fields] of docs.entries()) index.add(i + 1, analyzeFields(i === 150 ? [huge] : fields));
    expect(index.search(analyzeQuery('huge5999 huge0'), 1)).toEqual([{ label: 151, score: expect.any(Number) }]);
    expect(index.documentFrequency('huge4000')).toBe(1);
    for (const query of queries(docs, 30, 6))
      expect(index.search(query, 10)).toEqual(index.searchExhaustive(query, 10));
    index.remove(151);
    expect(index.knows('huge4000')).toBe(false);
  });

  it('forgets terms no document holds any more, and numbers terms afresh', () => {
    const index = new FullTextIndex(SMALL);
    for (let label = 1; label <= 6000; label++) index.add(label, analyzeFields([`common unique${label}`]));
    const before = index.stats().terms;
    for (let label = 1; label <= 5500; label++) index.remove(label);
    expect(before).toBe(6001);
    expect(index.stats().terms).toBeLessThan(2000);
    expect(index.knows('unique5999')).toBe(true);
    expect(index.knows('unique1')).toBe(false);
    expect(index.search(analyzeQuery('unique5999 common'), 1)[0].label).toBe(5999);
    expect(index.documentFrequency('common')).toBe(500);
  });
});

describe('collection statistics', () => {
  /** The union's counts for a query's terms, as shards add up their termStatistics. */
  function union(shards: FullTextIndex[], terms: string[]): CollectionStatistics {
    const parts = shards.map((shard) => shard.termStatistics(terms));
    const dfs = new Map(terms.map((term, i) => [term, parts.reduce((sum, part) => sum + part.dfs[i], 0)]));
    return {
      documents: parts.reduce((sum, part) => sum + part.documents, 0),
      totalLength: parts.reduce((sum, part) => sum + part.totalLength, 0),
      documentFrequency: (term) => dfs.get(term) ?? 0,
    };
  }

  it('reports its own counts for term texts', () => {
    const index = new FullTextIndex();
    const docs = corpus(200, 4);
    let totalLength = 0;
    for (const [i, fields] of docs.entries()) {
      const analyzed = analyzeFields(fields);
      totalLength += analyzed.length;
      index.add(i + 1, analyzed);
    }
    const terms = [...analyzeQuery(docs[0].join(' ')).terms, 'neverseen'];
    const statistics = index.termStatistics(terms);
    expect(statistics).toEqual({
      documents: 200,
      totalLength,
      dfs: terms.map((term) => index.documentFrequency(term)),
    });
    expect(statistics.dfs.at(-1)).toBe(0);
    index.remove(1);
    expect(index.termStatistics([]).totalLength).toBe(totalLength - analyzeFields(docs[0]).length);
  });

  it('scores shards with the union statistics exactly as one index holding every document', () => {
    const docs = corpus(3000, 17);
    const whole = new FullTextIndex();
    const shards = [new FullTextIndex(), new FullTextIndex(), new FullTextIndex()];
    for (const [i, fields] of docs.entries()) {
      whole.add(i + 1, analyzeFields(fields));
      shards[(i * 7) % 3].add(i + 1, analyzeFields(fields));
    }
    const next = random(31);
    for (let q = 0; q < 100; q++) {
      const query = analyzeQuery(docs[Math.floor(next() * docs.length)][0]);
      const statistics = union(shards, query.terms);
      for (const k of [1, 10, 50]) {
        const merged = shards
          .flatMap((shard) => shard.search(query, k, undefined, statistics))
          .sort((a, b) => b.score - a.score || a.label - b.label)
          .slice(0, k);
        expect(merged).toEqual(whole.search(query, k));
        const exhaustive = shards
          .flatMap((shard) => shard.searchExhaustive(query, k, statistics))
          .sort((a, b) => b.score - a.score || a.label - b.label)
          .slice(0, k);
        expect(exhaustive).toEqual(merged);
      }
      const labels = [1, 2, 3, 4, 5, 6, 100, 2999];
      const scores = new Map(shards.flatMap((shard) => [...shard.scores(query, labels, statistics)]));
      expect(scores).toEqual(whole.scores(query, labels));
      // A filter small enough for direct scoring takes the statistics as well.
      const allowed = new Set(labels);
      expect(shards[0].search(query, 3, allowed, statistics)).toEqual(
        whole.search(query, 3, new Set([...allowed].filter((label) => shards[0].has(label)))),
      );
    }
  });

  it('drops stop words when another shard holds the other words of the query', () => {
    const whole = new FullTextIndex();
    const shards = [new FullTextIndex(), new FullTextIndex()];
    const docs = [['the river of time'], ['the walrus and the carpenter'], ['of mice and men'], ['walrus tusks']];
    docs.forEach((fields, i) => {
      whole.add(i + 1, analyzeFields(fields));
      // Shard 0 holds no walrus: only the query's stop words.
      shards[i === 1 || i === 3 ? 1 : 0].add(i + 1, analyzeFields(fields));
    });
    const query = analyzeQuery('the walrus');
    const statistics = union(shards, query.terms);
    const merged = shards
      .flatMap((shard) => shard.search(query, 10, undefined, statistics))
      .sort((a, b) => b.score - a.score || a.label - b.label);
    expect(merged).toEqual(whole.search(query, 10));
    expect(merged.map((hit) => hit.label).sort()).toEqual([2, 4]);
    expect(shards[0].search(query, 10, undefined, statistics)).toEqual([]);
    expect(shards[0].scores(query, [1, 3], statistics)).toEqual(new Map());
  });

  it('without statistics, scores by its own counts', () => {
    const docs = corpus(500, 8);
    const index = new FullTextIndex();
    for (const [i, fields] of docs.entries()) index.add(i + 1, analyzeFields(fields));
    const query = analyzeQuery(docs[3][0]);
    const own = union([index], query.terms);
    expect(index.search(query, 10, undefined, own)).toEqual(index.search(query, 10));
    const skewed = { ...own, documents: own.documents * 10 };
    expect(index.search(query, 10, undefined, skewed)).not.toEqual(index.search(query, 10));
  });
});
