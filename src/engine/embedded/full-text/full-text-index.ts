import type { TermProfile, TermStatistics } from '../../providers/provider-types.js';
import {
  type AnalyzedDocument,
  type AnalyzedQuery,
  STOP_WORDS,
  type Term,
  termTrigrams,
} from '../../query/analyzer.js';
import { type Scored, TopK } from '../vector-math.js';
import { B, K1, maxScoreTopK } from './max-score.js';
import { PostingList } from './posting-list.js';
import { MIN_WORD_LENGTH, SpellingIndex } from './spelling-index.js';
import { TermDictionary } from './term-dictionary.js';
import { TermTrigrams } from './term-trigrams.js';
import { grow } from './typed-arrays.js';

/** Below this many accepted documents, a filtered search scores them directly. */
const DIRECT_FILTER_LIMIT = 4096;

/** The live documents of an index in compact form (see FullTextIndex.toState). */
export interface FullTextState {
  /** Live terms and a surface form of each, by renumbered id. */
  terms: string[];
  surfaces: string[];
  /** Per document: label, weighted length, and how many (term id, tf) pairs follow for it. */
  labels: Float64Array;
  lengths: Uint32Array;
  termCounts: Uint32Array;
  termIds: Uint32Array;
  tfs: Uint16Array;
}

/**
 * Collection-wide counts that BM25 can take instead of one index's own, so that several indexes
 * holding parts of one collection (shards) score as one index holding all of it would: summed
 * over the shards' {@link FullTextIndex.termStatistics}, they include this index's own counts.
 */
export interface CollectionStatistics {
  /** Documents in the whole collection. */
  documents: number;
  /** Sum of their weighted lengths. */
  totalLength: number;
  /** Documents of the whole collection holding `term` (a stemmed term). */
  documentFrequency(term: string): number;
}

/** One query term as scored: its posting list and inverse document frequency. */
interface QueryTerm {
  term: string;
  id: number;
  list: PostingList;
  idf: number;
}

/**
 * The full-text index of one namespace, in memory: term dictionary, posting lists of weighted
 * term frequencies (BM25F-style, see analyzer.ts), document lengths and a forward index (each
 * document's terms), over dense document ordinals. Top-k retrieval uses MaxScore dynamic pruning
 * (Turtle & Flood): terms whose combined best possible contribution cannot lift a document into
 * the current top k are only probed for documents that other terms already made candidates, so a
 * query with common words does not score every matching document. The ranking is exactly BM25
 * with live statistics (document count, document frequencies, average length), identical to
 * scoring every match ({@link searchExhaustive}), ties by label. Removed documents are skipped
 * until enough of them accumulate for a compaction.
 */
export class FullTextIndex implements TermStatistics {
  private dictionary = new TermDictionary();
  private lists: PostingList[] = [];
  private labels = new Float64Array(1024);
  private lengths = new Uint32Array(1024);
  private live = new Uint8Array(1024);
  private forwardStart = new Uint32Array(1024);
  private forwardCount = new Uint32Array(1024);
  private forwardTerms = new Uint32Array(16_384);
  private forwardTfs = new Uint16Array(16_384);
  private forwardUsed = 0;
  private ordinals = 0;
  private liveDocuments = 0;
  private totalLength = 0;
  private ordinalOf = new Map<number, number>();
  private spelling = new SpellingIndex();
  private trigrams = new TermTrigrams();
  /**
   * Live documents holding each term, dense beside the posting lists (the write path reads it for
   * every term). Removals decrement exactly what additions incremented, so it never goes below 0.
   */
  private dfs = new Uint32Array(1024);
  /** What {@link termProfile} answers, reused (callers read it before the next call). */
  private readonly profile: TermProfile & { trigramFrequencies: Int32Array } = {
    documentFrequency: 0,
    trigramFrequencies: new Int32Array(64),
  };

  /** Live documents. */
  get size(): number {
    return this.liveDocuments;
  }

  get documentCount(): number {
    return this.liveDocuments;
  }

  trigramFrequency(trigram: string): number {
    return this.trigrams.frequency(trigram);
  }

  termProfile(term: Term): TermProfile | undefined {
    const id = this.dictionary.known(term);
    if (id === undefined) return undefined;
    const profile = this.profile;
    profile.trigramFrequencies = this.trigrams.frequenciesOf(id, profile.trigramFrequencies);
    profile.documentFrequency = this.dfs[id];
    return profile;
  }

  has(label: number): boolean {
    return this.ordinalOf.has(label);
  }

  /** Labels of the indexed documents. */
  labelSet(): Set<number> {
    return new Set(this.ordinalOf.keys());
  }

  /** Indexes a document version, given its analysis (analyzer.ts `analyzeFields`). */
  add(label: number, analyzed: AnalyzedDocument): void {
    if (this.ordinalOf.has(label)) return;
    const { terms, surfaces } = analyzed;
    const ids = new Uint32Array(terms.length);
    for (let i = 0; i < terms.length; i++) ids[i] = this.idOf(terms[i], surfaces[i]);
    this.appendDocument(label, analyzed.length, ids, analyzed.frequencies);
  }

  /**
   * Its live content in a compact, position-independent form (term ids renumbered over the live
   * terms): what a snapshot file holds, and what {@link fromState} rebuilds an index from.
   */
  toState(): FullTextState {
    const newId = new Int32Array(this.lists.length).fill(-1);
    const terms: string[] = [];
    const surfaces: string[] = [];
    for (let id = 0; id < this.lists.length; id++) {
      if (this.dfs[id] === 0) continue;
      newId[id] = terms.length;
      terms.push(this.dictionary.texts[id]);
      surfaces.push(this.dictionary.surfaces[id]);
    }
    let postings = 0;
    for (let o = 0; o < this.ordinals; o++) if (this.live[o]) postings += this.forwardCount[o];
    const state: FullTextState = {
      terms,
      surfaces,
      labels: new Float64Array(this.liveDocuments),
      lengths: new Uint32Array(this.liveDocuments),
      termCounts: new Uint32Array(this.liveDocuments),
      termIds: new Uint32Array(postings),
      tfs: new Uint16Array(postings),
    };
    let doc = 0;
    let posting = 0;
    for (let o = 0; o < this.ordinals; o++) {
      if (!this.live[o]) continue;
      state.labels[doc] = this.labels[o];
      state.lengths[doc] = this.lengths[o];
      state.termCounts[doc] = this.forwardCount[o];
      for (let f = this.forwardStart[o]; f < this.forwardStart[o] + this.forwardCount[o]; f++) {
        state.termIds[posting] = newId[this.forwardTerms[f]];
        state.tfs[posting++] = this.forwardTfs[f];
      }
      doc++;
    }
    return state;
  }

  /** An index holding exactly the documents of `state` (see {@link toState}). */
  static fromState(state: FullTextState): FullTextIndex {
    const index = new FullTextIndex();
    const ids = state.terms.map((term, i) => index.termId(term, state.surfaces[i], termTrigrams(term)));
    let posting = 0;
    for (let doc = 0; doc < state.labels.length; doc++) {
      const end = posting + state.termCounts[doc];
      const termIds: number[] = [];
      for (let p = posting; p < end; p++) termIds.push(ids[state.termIds[p]]);
      index.appendDocument(state.labels[doc], state.lengths[doc], termIds, state.tfs.subarray(posting, end));
      posting = end;
    }
    return index;
  }

  /** Removes a document version; returns whether it was indexed. */
  remove(label: number): boolean {
    const ordinal = this.ordinalOf.get(label);
    if (ordinal === undefined) return false;
    this.ordinalOf.delete(label);
    this.live[ordinal] = 0;
    this.liveDocuments--;
    this.totalLength -= this.lengths[ordinal];
    const start = this.forwardStart[ordinal];
    for (let i = start; i < start + this.forwardCount[ordinal]; i++) {
      this.dfs[this.forwardTerms[i]]--;
      this.trigrams.count(this.forwardTerms[i], -1);
    }
    if (this.ordinals - this.liveDocuments > Math.max(1024, this.ordinals / 4)) this.compact();
    return true;
  }

  /** Whether `term` (a stemmed term, see analyzer.ts) occurs in a live document. */
  knows(term: string): boolean {
    return this.documentFrequency(term) > 0;
  }

  /** Live documents holding `term` (a stemmed term). */
  documentFrequency(term: string): number {
    const id = this.dictionary.get(term);
    return id === undefined ? 0 : this.dfs[id];
  }

  /** Known words (surface forms) possibly within `maxDistance` edits of `word`, to be verified by the caller. */
  spellingCandidates(word: string, maxDistance: number): string[] {
    if (word.length < MIN_WORD_LENGTH) return [];
    const out: string[] = [];
    for (const id of this.spelling.candidates(word, maxDistance))
      if (this.dfs[id] > 0) out.push(this.dictionary.surfaces[id]);
    return out;
  }

  /**
   * The best `k` documents for the query by BM25, best first (ties by label); with `filter`, only
   * documents whose label is in it. With `statistics`, IDF and the average length are the
   * collection's (see {@link CollectionStatistics}); which query terms count (known here, stop
   * words) is decided by this index alone.
   */
  search(query: AnalyzedQuery, k: number, filter?: ReadonlySet<number>, statistics?: CollectionStatistics): Scored[] {
    const terms = this.queryTerms(query, statistics);
    if (terms.length === 0 || k <= 0) return [];
    if (filter && filter.size <= DIRECT_FILTER_LIMIT) {
      const ordinals: number[] = [];
      for (const label of filter) {
        const ordinal = this.ordinalOf.get(label);
        if (ordinal !== undefined) ordinals.push(ordinal);
      }
      return this.topOf(terms, k, ordinals, statistics);
    }
    return this.maxScore(terms, k, filter, statistics);
  }

  /**
   * Reference top-k: scores every matching document (tests and benchmarks compare with {@link search}).
   * `statistics` as for {@link search}.
   */
  searchExhaustive(query: AnalyzedQuery, k: number, statistics?: CollectionStatistics): Scored[] {
    const terms = this.queryTerms(query, statistics);
    const matched = new Set<number>();
    for (const { list } of terms) {
      for (let i = 0; i < list.length; i++) if (this.live[list.docs[i]]) matched.add(list.docs[i]);
    }
    return this.topOf(terms, k, matched, statistics);
  }

  /**
   * BM25 of the given documents (labels not indexed, or matching no term, are absent);
   * `statistics` as for {@link search}.
   */
  scores(query: AnalyzedQuery, labels: Iterable<number>, statistics?: CollectionStatistics): Map<number, number> {
    const terms = this.queryTerms(query, statistics);
    const out = new Map<number, number>();
    if (terms.length === 0) return out;
    const weights = this.termWeights(terms, statistics);
    for (const label of labels) {
      const ordinal = this.ordinalOf.get(label);
      if (ordinal === undefined) continue;
      const score = this.canonicalScore(ordinal, terms, weights);
      if (score > 0) out.set(label, score);
    }
    return out;
  }

  /**
   * This index's own counts for the given term texts (stemmed terms): what shards add up into the
   * {@link CollectionStatistics} of their union.
   */
  termStatistics(terms: string[]): { documents: number; totalLength: number; dfs: number[] } {
    return {
      documents: this.liveDocuments,
      totalLength: this.totalLength,
      dfs: terms.map((term) => this.documentFrequency(term)),
    };
  }

  /** Counts for statistics and tests. */
  stats(): { documents: number; ordinals: number; terms: number; postings: number } {
    let postings = 0;
    for (const list of this.lists) postings += list.length;
    return { documents: this.liveDocuments, ordinals: this.ordinals, terms: this.lists.length, postings };
  }

  /**
   * The query's known terms with their IDF (from `statistics` when given); stop words are dropped
   * when other words remain.
   */
  private queryTerms(query: AnalyzedQuery, statistics?: CollectionStatistics): QueryTerm[] {
    const known: (QueryTerm & { stop: boolean })[] = [];
    const n = statistics ? statistics.documents : this.liveDocuments;
    query.terms.forEach((term, i) => {
      const id = this.dictionary.get(term);
      if (id === undefined || this.dfs[id] === 0) return;
      const df = statistics ? statistics.documentFrequency(term) : this.dfs[id];
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      known.push({ term, id, list: this.lists[id], idf, stop: STOP_WORDS.has(query.words[i]) });
    });
    const content = known.filter((term) => !term.stop);
    return content.length > 0 ? content : known;
  }

  /** The average weighted length BM25 normalizes by: the collection's when `statistics` are given. */
  private averageLength(statistics?: CollectionStatistics): number {
    return statistics
      ? statistics.totalLength / Math.max(1, statistics.documents)
      : this.totalLength / Math.max(1, this.liveDocuments);
  }

  /** Per-term factors of the BM25 formula that do not depend on the document. */
  private termWeights(
    terms: QueryTerm[],
    statistics?: CollectionStatistics,
  ): { order: number[]; norm: (length: number) => number } {
    const average = this.averageLength(statistics);
    // The canonical summation order is by term text, the same on every node whatever its term ids.
    const order = terms.map((_, i) => i).sort((a, b) => (terms[a].term < terms[b].term ? -1 : 1));
    return { order, norm: (length) => K1 * (1 - B + (B * length) / average) };
  }

  /** BM25 of one document, summed in the canonical order (see {@link termWeights}). */
  private canonicalScore(
    ordinal: number,
    terms: QueryTerm[],
    weights: ReturnType<FullTextIndex['termWeights']>,
  ): number {
    const start = this.forwardStart[ordinal];
    const end = start + this.forwardCount[ordinal];
    const norm = weights.norm(this.lengths[ordinal]);
    let score = 0;
    for (const i of weights.order) {
      const id = terms[i].id;
      for (let f = start; f < end; f++) {
        if (this.forwardTerms[f] !== id) continue;
        const tf = this.forwardTfs[f];
        score += (terms[i].idf * tf * (K1 + 1)) / (tf + norm);
        break;
      }
    }
    return score;
  }

  /** The best `k` of candidate ordinals by canonical score, as labels. */
  private topOf(
    terms: QueryTerm[],
    k: number,
    ordinals: Iterable<number>,
    statistics: CollectionStatistics | undefined,
  ): Scored[] {
    const weights = this.termWeights(terms, statistics);
    const top = new TopK(k);
    for (const ordinal of ordinals) {
      if (!this.live[ordinal]) continue;
      const score = this.canonicalScore(ordinal, terms, weights);
      if (score > 0) top.push(this.labels[ordinal], score);
    }
    return top.sorted();
  }

  private maxScore(
    terms: QueryTerm[],
    k: number,
    filter: ReadonlySet<number> | undefined,
    statistics: CollectionStatistics | undefined,
  ): Scored[] {
    const average = this.averageLength(statistics);
    return maxScoreTopK(terms, k, {
      norm: (length) => K1 * (1 - B + (B * length) / average),
      lengths: this.lengths,
      live: this.live,
      labels: this.labels,
      filter,
    });
  }

  /** The id of a document's term, added with its trigrams when new. */
  private idOf(term: Term, surface: string): number {
    const id = this.dictionary.idOf(term, surface);
    if (id === this.lists.length) this.termAdded(id, surface, term.trigrams);
    return id;
  }

  /** The id of a term text, added with its trigrams when new. */
  private termId(text: string, surface: string, trigrams: readonly string[]): number {
    const id = this.dictionary.add(text, surface);
    if (id === this.lists.length) this.termAdded(id, surface, trigrams);
    return id;
  }

  private termAdded(id: number, surface: string, trigrams: readonly string[]): void {
    this.lists.push(new PostingList());
    this.spelling.add(id, surface);
    this.trigrams.addTerm(trigrams);
    if (id === this.dfs.length) this.dfs = grow(this.dfs, new Uint32Array(id * 2));
  }

  /** Rewrites posting lists, forward index and dictionary without removed documents and dead terms. */
  private compact(): void {
    Object.assign(this, FullTextIndex.fromState(this.toState()));
  }

  /** Appends a document version given its (interned) term ids and weighted frequencies. */
  private appendDocument(label: number, length: number, ids: ArrayLike<number>, tfs: ArrayLike<number>): void {
    const ordinal = this.ordinals++;
    this.ensureDocuments(this.ordinals);
    this.ensureForward(this.forwardUsed + ids.length);
    this.labels[ordinal] = label;
    this.lengths[ordinal] = length;
    this.live[ordinal] = 1;
    this.forwardStart[ordinal] = this.forwardUsed;
    this.forwardCount[ordinal] = ids.length;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      const tf = Math.min(tfs[i], 0xffff);
      this.lists[id].add(ordinal, tf, length);
      this.dfs[id]++;
      this.trigrams.count(id, 1);
      this.forwardTerms[this.forwardUsed] = id;
      this.forwardTfs[this.forwardUsed] = tf;
      this.forwardUsed++;
    }
    this.ordinalOf.set(label, ordinal);
    this.liveDocuments++;
    this.totalLength += length;
  }

  private ensureDocuments(count: number): void {
    if (count <= this.labels.length) return;
    const size = Math.max(count, this.labels.length * 2);
    this.labels = grow(this.labels, new Float64Array(size));
    this.lengths = grow(this.lengths, new Uint32Array(size));
    this.live = grow(this.live, new Uint8Array(size));
    this.forwardStart = grow(this.forwardStart, new Uint32Array(size));
    this.forwardCount = grow(this.forwardCount, new Uint32Array(size));
  }

  private ensureForward(count: number): void {
    if (count <= this.forwardTerms.length) return;
    const size = Math.max(count, this.forwardTerms.length * 2);
    this.forwardTerms = grow(this.forwardTerms, new Uint32Array(size));
    this.forwardTfs = grow(this.forwardTfs, new Uint16Array(size));
  }
}
