import type { TermStatistics } from '../../providers/provider-types.js';
import { type AnalyzedDocument, type AnalyzedQuery, STOP_WORDS, termTrigrams } from '../../query/analyzer.js';
import { type Scored, TopK } from '../vector-math.js';
import { PostingList } from './posting-list.js';
import { MIN_WORD_LENGTH, SpellingIndex } from './spelling-index.js';

/** BM25 saturation and length normalization (Lucene's defaults). */
export const K1 = 1.2;
export const B = 0.75;
/** Below this many accepted documents, a filtered search scores them directly. */
const DIRECT_FILTER_LIMIT = 4096;

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
  private readonly termIds = new Map<string, number>();
  private terms: string[] = [];
  /** A folded word (surface form) seen for each term, for spelling suggestions. */
  private surfaces: string[] = [];
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
  private readonly ordinalOf = new Map<number, number>();
  private spelling = new SpellingIndex();
  /** Character trigrams of the terms (ids), and how often each occurs over the live documents' distinct terms. */
  private readonly trigramIds = new Map<string, number>();
  private trigramsOfTerm: Int32Array[] = [];
  private trigramCounts = new Int32Array(1024);

  /** Live documents. */
  get size(): number {
    return this.liveDocuments;
  }

  get documentCount(): number {
    return this.liveDocuments;
  }

  trigramFrequency(trigram: string): number {
    const id = this.trigramIds.get(trigram);
    return id === undefined ? 0 : this.trigramCounts[id];
  }

  trigramFrequencies(term: string): ArrayLike<number> | undefined {
    const id = this.termIds.get(term);
    if (id === undefined) return undefined;
    const trigrams = this.trigramsOfTerm[id];
    const counts = new Array<number>(trigrams.length);
    for (let i = 0; i < trigrams.length; i++) counts[i] = this.trigramCounts[trigrams[i]];
    return counts;
  }

  has(label: number): boolean {
    return this.ordinalOf.has(label);
  }

  /** Indexes a document version, given its analysis (analyzer.ts `analyzeFields`). */
  add(label: number, analyzed: AnalyzedDocument): void {
    if (this.ordinalOf.has(label)) return;
    const ordinal = this.ordinals++;
    this.ensureDocuments(this.ordinals);
    this.ensureForward(this.forwardUsed + analyzed.terms.size);
    this.labels[ordinal] = label;
    this.lengths[ordinal] = analyzed.length;
    this.live[ordinal] = 1;
    this.forwardStart[ordinal] = this.forwardUsed;
    this.forwardCount[ordinal] = analyzed.terms.size;
    for (const [term, tf] of analyzed.terms) {
      const id = this.termId(term, analyzed.surfaces.get(term)!);
      this.lists[id].add(ordinal, tf, analyzed.length);
      this.countTrigrams(id, 1);
      this.forwardTerms[this.forwardUsed] = id;
      this.forwardTfs[this.forwardUsed] = Math.min(tf, 0xffff);
      this.forwardUsed++;
    }
    this.ordinalOf.set(label, ordinal);
    this.liveDocuments++;
    this.totalLength += analyzed.length;
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
      this.lists[this.forwardTerms[i]].df--;
      this.countTrigrams(this.forwardTerms[i], -1);
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
    const id = this.termIds.get(term);
    return id === undefined ? 0 : this.lists[id].df;
  }

  /** Known words (surface forms) possibly within `maxDistance` edits of `word`, to be verified by the caller. */
  spellingCandidates(word: string, maxDistance: number): string[] {
    if (word.length < MIN_WORD_LENGTH) return [];
    const out: string[] = [];
    for (const id of this.spelling.candidates(word, maxDistance))
      if (this.lists[id].df > 0) out.push(this.surfaces[id]);
    return out;
  }

  /**
   * The best `k` documents for the query by BM25, best first (ties by label); with `filter`, only
   * documents whose label is in it.
   */
  search(query: AnalyzedQuery, k: number, filter?: ReadonlySet<number>): Scored[] {
    const terms = this.queryTerms(query);
    if (terms.length === 0 || k <= 0) return [];
    if (filter && filter.size <= DIRECT_FILTER_LIMIT) {
      const ordinals: number[] = [];
      for (const label of filter) {
        const ordinal = this.ordinalOf.get(label);
        if (ordinal !== undefined) ordinals.push(ordinal);
      }
      return this.topOf(terms, k, ordinals);
    }
    return this.maxScore(terms, k, filter);
  }

  /** Reference top-k: scores every matching document (tests and benchmarks compare with {@link search}). */
  searchExhaustive(query: AnalyzedQuery, k: number): Scored[] {
    const terms = this.queryTerms(query);
    const matched = new Set<number>();
    for (const { list } of terms) {
      for (let i = 0; i < list.length; i++) if (this.live[list.docs[i]]) matched.add(list.docs[i]);
    }
    return this.topOf(terms, k, matched);
  }

  /** BM25 of the given documents (labels not indexed, or matching no term, are absent). */
  scores(query: AnalyzedQuery, labels: Iterable<number>): Map<number, number> {
    const terms = this.queryTerms(query);
    const out = new Map<number, number>();
    if (terms.length === 0) return out;
    const weights = this.termWeights(terms);
    for (const label of labels) {
      const ordinal = this.ordinalOf.get(label);
      if (ordinal === undefined) continue;
      const score = this.canonicalScore(ordinal, terms, weights);
      if (score > 0) out.set(label, score);
    }
    return out;
  }

  /** Counts for statistics and tests. */
  stats(): { documents: number; ordinals: number; terms: number; postings: number } {
    let postings = 0;
    for (const list of this.lists) postings += list.length;
    return { documents: this.liveDocuments, ordinals: this.ordinals, terms: this.lists.length, postings };
  }

  /** The query's known terms with their IDF; stop words are dropped when other words remain. */
  private queryTerms(query: AnalyzedQuery): QueryTerm[] {
    const known: (QueryTerm & { stop: boolean })[] = [];
    const n = this.liveDocuments;
    query.terms.forEach((term, i) => {
      const id = this.termIds.get(term);
      if (id === undefined || this.lists[id].df === 0) return;
      const df = this.lists[id].df;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      known.push({ term, id, list: this.lists[id], idf, stop: STOP_WORDS.has(query.words[i]) });
    });
    const content = known.filter((term) => !term.stop);
    return content.length > 0 ? content : known;
  }

  /** Per-term factors of the BM25 formula that do not depend on the document. */
  private termWeights(terms: QueryTerm[]): { order: number[]; norm: (length: number) => number } {
    const average = this.totalLength / Math.max(1, this.liveDocuments);
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
  private topOf(terms: QueryTerm[], k: number, ordinals: Iterable<number>): Scored[] {
    const weights = this.termWeights(terms);
    const top = new TopK(k);
    for (const ordinal of ordinals) {
      if (!this.live[ordinal]) continue;
      const score = this.canonicalScore(ordinal, terms, weights);
      if (score > 0) top.push(this.labels[ordinal], score);
    }
    return top.sorted();
  }

  /**
   * MaxScore document-at-a-time retrieval of the `k` best ordinals. Terms are ordered by their best
   * possible contribution; the lowest ones whose bounds add up below the current k-th score are
   * non-essential: candidates come from the essential lists only, and non-essential lists are
   * probed (galloping) for a candidate only while its score plus their remaining bound can still
   * reach the threshold. Bounds are strict, so ties with the k-th score are always scored, and
   * every score is summed in the canonical order (the exhaustive scoring's), so the top k is exact.
   */
  private maxScore(terms: QueryTerm[], k: number, filter?: ReadonlySet<number>): Scored[] {
    const average = this.totalLength / Math.max(1, this.liveDocuments);
    const norm = (length: number) => K1 * (1 - B + (B * length) / average);
    const sorted = terms
      .map((term) => ({
        ...term,
        // A hair above the true bound, so rounding can never prune a document that reaches the threshold.
        bound: ((term.idf * term.list.maxTf * (K1 + 1)) / (term.list.maxTf + norm(term.list.minLength))) * (1 + 1e-9),
      }))
      .sort((a, b) => a.bound - b.bound);
    const n = sorted.length;
    // Contributions are added up in the canonical order (by term text), so scores equal the
    // exhaustive ones to the last bit and ties resolve by label exactly as they would there.
    const canonical = sorted.map((_, i) => i).sort((a, b) => (sorted[a].term < sorted[b].term ? -1 : 1));
    const contributions = new Float64Array(n);
    const prefix = new Float64Array(n);
    for (let i = 0, sum = 0; i < n; i++) prefix[i] = sum += sorted[i].bound;
    const positions = new Int32Array(n);
    const top = new TopK(k);
    let threshold = Number.NEGATIVE_INFINITY;
    let essential = 0;
    const { lengths, live, labels } = this;
    for (;;) {
      let candidate = 0xffffffff;
      for (let i = essential; i < n; i++) {
        const list = sorted[i].list;
        if (positions[i] < list.length && list.docs[positions[i]] < candidate) candidate = list.docs[positions[i]];
      }
      if (candidate === 0xffffffff) break;
      const lengthNorm = norm(lengths[candidate]);
      contributions.fill(0);
      let score = 0;
      for (let i = essential; i < n; i++) {
        const { list, idf } = sorted[i];
        const p = positions[i];
        if (p < list.length && list.docs[p] === candidate) {
          const tf = list.tfs[p];
          contributions[i] = (idf * tf * (K1 + 1)) / (tf + lengthNorm);
          score += contributions[i];
          positions[i] = p + 1;
        }
      }
      if (!live[candidate] || (filter && !filter.has(labels[candidate]))) continue;
      let pruned = false;
      for (let i = essential - 1; i >= 0; i--) {
        if (score + prefix[i] < threshold) {
          pruned = true;
          break;
        }
        const { list, idf } = sorted[i];
        const p = list.seek(positions[i], candidate);
        positions[i] = p;
        if (p < list.length && list.docs[p] === candidate) {
          const tf = list.tfs[p];
          contributions[i] = (idf * tf * (K1 + 1)) / (tf + lengthNorm);
          score += contributions[i];
        }
      }
      if (pruned) continue;
      let exact = 0;
      for (const i of canonical) exact += contributions[i];
      top.push(labels[candidate], exact);
      if (top.full) {
        threshold = top.minScore;
        while (essential < n && prefix[essential] < threshold) essential++;
      }
    }
    return top.sorted();
  }

  private termId(term: string, surface: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.lists.length;
      this.termIds.set(term, id);
      this.terms.push(term);
      this.surfaces.push(surface);
      this.lists.push(new PostingList());
      this.spelling.add(id, surface);
      this.trigramsOfTerm.push(Int32Array.from(termTrigrams(term), (trigram) => this.trigramId(trigram)));
    }
    return id;
  }

  private trigramId(trigram: string): number {
    let id = this.trigramIds.get(trigram);
    if (id === undefined) {
      id = this.trigramIds.size;
      this.trigramIds.set(trigram, id);
      if (id === this.trigramCounts.length) this.trigramCounts = grow(this.trigramCounts, new Int32Array(id * 2));
    }
    return id;
  }

  private countTrigrams(termId: number, delta: number): void {
    for (const trigram of this.trigramsOfTerm[termId]) this.trigramCounts[trigram] += delta;
  }

  /** Rewrites posting lists, forward index and dictionary without removed documents and dead terms. */
  private compact(): void {
    const old = {
      labels: this.labels,
      lengths: this.lengths,
      live: this.live,
      start: this.forwardStart,
      count: this.forwardCount,
      terms: this.forwardTerms,
      tfs: this.forwardTfs,
      ordinals: this.ordinals,
      dictionary: this.terms,
      surfaces: this.surfaces,
    };
    this.termIds.clear();
    this.terms = [];
    this.surfaces = [];
    this.lists = [];
    this.trigramsOfTerm = [];
    this.spelling = new SpellingIndex();
    this.ordinalOf.clear();
    this.labels = new Float64Array(Math.max(1024, this.liveDocuments));
    this.lengths = new Uint32Array(this.labels.length);
    this.live = new Uint8Array(this.labels.length);
    this.forwardStart = new Uint32Array(this.labels.length);
    this.forwardCount = new Uint32Array(this.labels.length);
    this.forwardUsed = 0;
    this.ordinals = 0;
    let needed = 0;
    for (let o = 0; o < old.ordinals; o++) if (old.live[o]) needed += old.count[o];
    this.forwardTerms = new Uint32Array(Math.max(16_384, needed));
    this.forwardTfs = new Uint16Array(this.forwardTerms.length);
    for (let o = 0; o < old.ordinals; o++) {
      if (!old.live[o]) continue;
      const ordinal = this.ordinals++;
      const length = old.lengths[o];
      this.labels[ordinal] = old.labels[o];
      this.lengths[ordinal] = length;
      this.live[ordinal] = 1;
      this.forwardStart[ordinal] = this.forwardUsed;
      this.forwardCount[ordinal] = old.count[o];
      for (let f = old.start[o]; f < old.start[o] + old.count[o]; f++) {
        const id = this.termId(old.dictionary[old.terms[f]], old.surfaces[old.terms[f]]);
        this.lists[id].add(ordinal, old.tfs[f], length);
        this.forwardTerms[this.forwardUsed] = id;
        this.forwardTfs[this.forwardUsed] = old.tfs[f];
        this.forwardUsed++;
      }
      this.ordinalOf.set(old.labels[o], ordinal);
    }
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

function grow<T extends Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array>(from: T, to: T): T {
  to.set(from as never);
  return to;
}
