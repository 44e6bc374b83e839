import type { TermProfile, TermStatistics } from '../../providers/provider-types.js';
import {
  type AnalyzedDocument,
  type AnalyzedQuery,
  STOP_WORDS,
  type Term,
  termTrigrams,
} from '../../query/analyzer.js';
import { type Scored, TopK } from '../vector-math.js';
import { BLOCK_SIZE } from './block-codec.js';
import { BlockMaxScore } from './block-max-score.js';
import { inverseDocumentFrequency } from './bm25.js';
import { DocumentBuffer } from './document-buffer.js';
import { matchingDocuments, scoreBuffer, scoreDocuments } from './exact-scores.js';
import { PostingCursor, type ScoredTerm } from './posting-cursor.js';
import type { Segment } from './segment.js';
import { mergeSegments, sealBuffer } from './segment-build.js';
import { MIN_WORD_LENGTH, SpellingIndex } from './spelling-index.js';
import { TermDictionary } from './term-dictionary.js';
import { TermTrigrams } from './term-trigrams.js';
import { grow } from './typed-arrays.js';

/** Below this many accepted documents, a filtered search scores them directly. */
const DIRECT_FILTER_LIMIT = 4096;
/** The buffer is sealed into a segment when it holds this many documents or (term, frequency) entries. */
const BUFFER_DOCUMENTS = 4096;
const BUFFER_ENTRIES = 1 << 18;
/** The buffer while {@link FullTextIndex.fromState} loads: larger, so that loading merges less. */
const BULK_DOCUMENTS = 1 << 16;
const BULK_ENTRIES = 1 << 20;
/** Segments of one size class are merged when there are this many (see {@link sizeClass}). */
const MERGE_FACTOR = 4;
/**
 * A segment (or the buffer) is rewritten without its removed documents once they are more than
 * this share of it, and at least {@link DEAD_MIN}.
 */
const DEAD_SHARE = 1 / 4;
const DEAD_MIN = 32;
/**
 * The index is rebuilt without the terms no live document holds once they are more than half of
 * the dictionary, and at least this many.
 */
const UNUSED_TERMS_MIN = 4096;

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

/** Capacity of the buffer of unsealed documents (tests use small ones to get many segments). */
export interface FullTextIndexOptions {
  /** Documents the buffer holds before it is sealed into a segment. */
  bufferDocuments?: number;
  /** (term, frequency) entries the buffer holds before it is sealed into a segment. */
  bufferEntries?: number;
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

/**
 * The full-text index of one namespace, in memory: term dictionary, live statistics (document
 * frequencies, trigram counts, total length) and the documents, BM25F-style weighted (see
 * analyzer.ts). Scoring is exactly BM25 with live statistics, identical to scoring every match
 * ({@link searchExhaustive}), ties by label.
 *
 * Documents live in a log-structured merge of immutable segments (segment.ts) rather than in one
 * growable posting list per term: new documents go to a small uncompressed buffer
 * (document-buffer.ts), searched directly; when it is full it is inverted at once into a
 * compressed segment (bit-packed blocks of 128 postings with block-max bounds), and the newest
 * segments are merged whenever four of them are of one size class, so there are logarithmically
 * many and each posting is rewritten logarithmically often. The bulk of the memory is thus in
 * exactly sized typed arrays, with no per-term objects and no slack from growing lists, and each
 * segment is encoded in one pass over postings already in order. A removal marks the document
 * dead and updates the statistics through its segment's forward index at once; its postings go
 * when a merge rewrites the segment, which happens early for a segment a quarter dead. Top-k
 * retrieval is Block-Max MaxScore over each segment in turn (block-max-score.ts), sharing one
 * top k, so the largest segments, searched first, raise the bar for the others.
 */
export class FullTextIndex implements TermStatistics {
  private dictionary = new TermDictionary();
  /** Oldest first; their ordinals ascend, and all are below the buffer's. */
  private segments: Segment[] = [];
  private buffer: DocumentBuffer;
  /** Global ordinal of each live document: its segment's (or the buffer's) base plus its local number. */
  private ordinalOf = new Map<number, number>();
  private liveDocuments = 0;
  private totalLength = 0;
  private spelling = new SpellingIndex();
  private trigrams = new TermTrigrams();
  /**
   * Live documents holding each term, by term id. Removals decrement exactly what additions
   * incremented, so it never goes below 0.
   */
  private dfs = new Uint32Array(1024);
  /** Terms of the dictionary that no live document holds. */
  private unusedTerms = 0;
  /** What {@link termProfile} answers, reused (callers read it before the next call). */
  private readonly profile: TermProfile & { trigramFrequencies: Int32Array } = {
    documentFrequency: 0,
    trigramFrequencies: new Int32Array(64),
  };

  constructor(private readonly options: FullTextIndexOptions = {}) {
    this.buffer = this.newBuffer(0);
  }

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
    const newId = new Int32Array(this.dictionary.size).fill(-1);
    const terms: string[] = [];
    const surfaces: string[] = [];
    for (let id = 0; id < this.dictionary.size; id++) {
      if (this.dfs[id] === 0) continue;
      newId[id] = terms.length;
      terms.push(this.dictionary.texts[id]);
      surfaces.push(this.dictionary.surfaces[id]);
    }
    const documents = this.liveDocuments;
    const labels = new Float64Array(documents);
    const lengths = new Uint32Array(documents);
    const termCounts = new Uint32Array(documents);
    let n = 0;
    // Each segment's documents by their position in the state (-1: removed).
    const positions = this.segments.map((segment) => {
      const position = new Int32Array(segment.size).fill(-1);
      for (let doc = 0; doc < segment.size; doc++) {
        if (!segment.live[doc]) continue;
        labels[n] = segment.labels[doc];
        lengths[n] = segment.lengths[doc];
        termCounts[n] = segment.termCount(doc);
        position[doc] = n++;
      }
      return position;
    });
    const buffer = this.buffer;
    const bufferStart = n;
    for (let doc = 0; doc < buffer.count; doc++) {
      if (!buffer.live[doc]) continue;
      labels[n] = buffer.labels[doc];
      lengths[n] = buffer.lengths[doc];
      termCounts[n++] = buffer.starts[doc + 1] - buffer.starts[doc];
    }
    const next = new Uint32Array(documents);
    let postings = 0;
    for (let doc = 0; doc < documents; doc++) {
      next[doc] = postings;
      postings += termCounts[doc];
    }
    const termIds = new Uint32Array(postings);
    const tfs = new Uint16Array(postings);
    // Segment terms ascend by id, and so do the new ids: each document's entries come out sorted.
    const docs = new Int32Array(BLOCK_SIZE);
    const frequencies = new Int32Array(BLOCK_SIZE);
    this.segments.forEach((segment, s) => {
      const position = positions[s];
      for (let j = 0; j < segment.terms.length; j++) {
        const id = newId[segment.terms[j]];
        for (let block = segment.termBlocks[j]; block < segment.termBlocks[j + 1]; block++) {
          const count = segment.decodeBlock(j, block, docs, frequencies);
          for (let i = 0; i < count; i++) {
            const doc = position[docs[i]];
            if (doc < 0) continue;
            termIds[next[doc]] = id;
            tfs[next[doc]++] = frequencies[i];
          }
        }
      }
    });
    for (let doc = 0, p = bufferStart < documents ? next[bufferStart] : 0; doc < buffer.count; doc++) {
      if (!buffer.live[doc]) continue;
      for (let entry = buffer.starts[doc]; entry < buffer.starts[doc + 1]; entry++, p++) {
        termIds[p] = newId[buffer.termIds[entry]];
        tfs[p] = buffer.tfs[entry];
      }
    }
    return { terms, surfaces, labels, lengths, termCounts, termIds, tfs };
  }

  /** An index holding exactly the documents of `state` (see {@link toState}). */
  static fromState(state: FullTextState, options: FullTextIndexOptions = {}): FullTextIndex {
    const index = new FullTextIndex(options);
    index.buffer = new DocumentBuffer(0, BULK_DOCUMENTS, BULK_ENTRIES);
    const ids = state.terms.map((term, i) => index.termId(term, state.surfaces[i], termTrigrams(term)));
    let posting = 0;
    for (let doc = 0; doc < state.labels.length; doc++) {
      const end = posting + state.termCounts[doc];
      const termIds: number[] = [];
      for (let p = posting; p < end; p++) termIds.push(ids[state.termIds[p]]);
      index.appendDocument(state.labels[doc], state.lengths[doc], termIds, state.tfs.subarray(posting, end), false);
      posting = end;
    }
    // Counted once per term rather than once per posting.
    for (let id = 0; id < index.dictionary.size; id++) index.trigrams.count(id, index.dfs[id]);
    index.seal();
    if (index.segments.length > 1) index.merge(0, index.segments.length);
    index.buffer = index.newBuffer(index.buffer.base);
    return index;
  }

  /** Removes a document version; returns whether it was indexed. */
  remove(label: number): boolean {
    const ordinal = this.ordinalOf.get(label);
    if (ordinal === undefined) return false;
    this.ordinalOf.delete(label);
    const forget = (id: number) => {
      if (--this.dfs[id] === 0) this.unusedTerms++;
      this.trigrams.count(id, -1);
    };
    const buffer = this.buffer;
    let length: number;
    if (ordinal >= buffer.base) {
      const doc = ordinal - buffer.base;
      buffer.kill(doc);
      for (let entry = buffer.starts[doc]; entry < buffer.starts[doc + 1]; entry++) forget(buffer.termIds[entry]);
      length = buffer.lengths[doc];
      if (mostlyDead(buffer.dead, buffer.count)) this.seal();
    } else {
      const s = this.segmentOf(ordinal);
      const segment = this.segments[s];
      const doc = ordinal - segment.base;
      segment.kill(doc);
      segment.forEachTerm(doc, forget);
      length = segment.lengths[doc];
      if (mostlyDead(segment.dead, segment.size)) this.merge(s, s + 1);
    }
    this.liveDocuments--;
    this.totalLength -= length;
    if (this.unusedTerms > Math.max(UNUSED_TERMS_MIN, this.dictionary.size / 2)) this.rebuild();
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
    const cursors = this.cursorsOf(terms, statistics);
    if (filter && filter.size <= DIRECT_FILTER_LIMIT) {
      const top = new TopK(k);
      this.scoreLabels(cursors, statistics, filter, (label, score) => top.push(label, score));
      return top.sorted();
    }
    const scorer = new BlockMaxScore(cursors, k, this.averageLength(statistics), filter);
    // Smallest first: what they put in the top k lets more of the larger ones be skipped.
    scorer.searchBuffer(this.buffer);
    for (let s = this.segments.length - 1; s >= 0; s--) scorer.search(this.segments[s]);
    return scorer.results();
  }

  /**
   * Reference top-k: scores every matching document (tests and benchmarks compare with {@link search}).
   * `statistics` as for {@link search}.
   */
  searchExhaustive(query: AnalyzedQuery, k: number, statistics?: CollectionStatistics): Scored[] {
    const cursors = this.cursorsOf(this.queryTerms(query, statistics), statistics);
    const top = new TopK(k);
    for (const segment of this.segments) {
      scoreDocuments(segment, cursors, cursors.length, matchingDocuments(segment, cursors), (doc, score) => {
        if (segment.live[doc] && score > 0) top.push(segment.labels[doc], score);
      });
    }
    const buffer = this.buffer;
    scoreBuffer(buffer, cursors, cursors.length, this.averageLength(statistics), (doc, score) => {
      if (buffer.live[doc] && score > 0) top.push(buffer.labels[doc], score);
    });
    return top.sorted();
  }

  /**
   * BM25 of the given documents (labels not indexed, or matching no term, are absent);
   * `statistics` as for {@link search}.
   */
  scores(query: AnalyzedQuery, labels: Iterable<number>, statistics?: CollectionStatistics): Map<number, number> {
    const out = new Map<number, number>();
    const terms = this.queryTerms(query, statistics);
    if (terms.length === 0) return out;
    this.scoreLabels(this.cursorsOf(terms, statistics), statistics, labels, (label, score) => out.set(label, score));
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

  /**
   * Counts for statistics and tests: live documents, document slots (removed documents not yet
   * merged away included), terms of the dictionary, postings held, segments.
   */
  stats(): { documents: number; ordinals: number; terms: number; postings: number; segments: number } {
    let ordinals = this.buffer.count;
    let postings = this.buffer.entries;
    for (const segment of this.segments) {
      ordinals += segment.size;
      postings += segment.postings;
    }
    return {
      documents: this.liveDocuments,
      ordinals,
      terms: this.dictionary.size,
      postings,
      segments: this.segments.length,
    };
  }

  /**
   * The query's known terms with their IDF (from `statistics` when given); stop words are dropped
   * when other words remain.
   */
  private queryTerms(query: AnalyzedQuery, statistics?: CollectionStatistics): ScoredTerm[] {
    const known: (ScoredTerm & { stop: boolean })[] = [];
    const n = statistics ? statistics.documents : this.liveDocuments;
    // Whether stop words are dropped depends on the collection: a shard holding none of the
    // query's other words must still drop them when another shard holds one.
    let content = false;
    const selecting = query.selecting ?? query.terms.length;
    query.terms.forEach((term, i) => {
      const stop = STOP_WORDS.has(query.words[i]);
      const id = this.dictionary.get(term);
      const localDf = id === undefined ? 0 : this.dfs[id];
      const df = statistics ? statistics.documentFrequency(term) : localDf;
      const optional = i >= selecting;
      if (df > 0 && !stop && !optional) content = true;
      if (id === undefined || localDf === 0) return;
      // A query term's weight scales its IDF, so every scoring path and every bound scales with it.
      known.push({ term, id, idf: inverseDocumentFrequency(n, df) * (query.weights?.[i] ?? 1), stop, optional });
    });
    const counted = content ? known.filter((term) => !term.stop) : known;
    // Without a term that selects, the query matches nothing.
    return counted.some((term) => !term.optional) ? counted : [];
  }

  /** A cursor per term, ranked in the canonical summation order: by term text, the same on every node whatever its term ids. */
  private cursorsOf(terms: ScoredTerm[], statistics: CollectionStatistics | undefined): PostingCursor[] {
    const average = this.averageLength(statistics);
    const order = terms.map((_, i) => i).sort((a, b) => (terms[a].term < terms[b].term ? -1 : 1));
    const rank = new Int32Array(terms.length);
    order.forEach((i, r) => {
      rank[i] = r;
    });
    return terms.map(({ id, idf, optional }, i) => new PostingCursor(id, idf, rank[i], average, optional));
  }

  /** The average weighted length BM25 normalizes by: the collection's when `statistics` are given. */
  private averageLength(statistics?: CollectionStatistics): number {
    return statistics
      ? statistics.totalLength / Math.max(1, statistics.documents)
      : this.totalLength / Math.max(1, this.liveDocuments);
  }

  /** Calls `visit` with each indexed label of `labels` holding a query term, and its score. */
  private scoreLabels(
    cursors: PostingCursor[],
    statistics: CollectionStatistics | undefined,
    labels: Iterable<number>,
    visit: (label: number, score: number) => void,
  ): void {
    const bySegment: number[][] = this.segments.map(() => []);
    const buffer = this.buffer;
    const inBuffer = new Uint8Array(buffer.count);
    for (const label of labels) {
      const ordinal = this.ordinalOf.get(label);
      if (ordinal === undefined) continue;
      if (ordinal >= buffer.base) {
        inBuffer[ordinal - buffer.base] = 1;
      } else {
        const s = this.segmentOf(ordinal);
        bySegment[s].push(ordinal - this.segments[s].base);
      }
    }
    this.segments.forEach((segment, s) => {
      if (bySegment[s].length === 0) return;
      const docs = Int32Array.from(bySegment[s]).sort();
      scoreDocuments(segment, cursors, cursors.length, docs, (doc, score) => {
        if (score > 0) visit(segment.labels[doc], score);
      });
    });
    if (!inBuffer.includes(1)) return;
    scoreBuffer(buffer, cursors, cursors.length, this.averageLength(statistics), (doc, score) => {
      if (inBuffer[doc] && score > 0) visit(buffer.labels[doc], score);
    });
  }

  /** The index of the segment holding global ordinal `ordinal` (below the buffer's). */
  private segmentOf(ordinal: number): number {
    const segments = this.segments;
    let low = 0;
    let high = segments.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (segments[mid].base <= ordinal) low = mid;
      else high = mid - 1;
    }
    return low;
  }

  /** The id of a document's term, added with its trigrams when new. */
  private idOf(term: Term, surface: string): number {
    const terms = this.dictionary.size;
    const id = this.dictionary.idOf(term, surface);
    if (this.dictionary.size > terms) this.termAdded(id, surface, term.trigrams);
    return id;
  }

  /** The id of a term text, added with its trigrams when new. */
  private termId(text: string, surface: string, trigrams: readonly string[]): number {
    const terms = this.dictionary.size;
    const id = this.dictionary.add(text, surface);
    if (this.dictionary.size > terms) this.termAdded(id, surface, trigrams);
    return id;
  }

  private termAdded(id: number, surface: string, trigrams: readonly string[]): void {
    this.spelling.add(id, surface);
    this.trigrams.addTerm(trigrams);
    this.unusedTerms++;
    if (id === this.dfs.length) this.dfs = grow(this.dfs, new Uint32Array(id * 2));
  }

  /**
   * Appends a document version given its (interned) term ids and weighted frequencies; its terms'
   * trigrams are counted unless `countTrigrams` is false (the caller counts them).
   */
  private appendDocument(
    label: number,
    length: number,
    ids: ArrayLike<number>,
    tfs: ArrayLike<number>,
    countTrigrams = true,
  ): void {
    if (!this.buffer.fits(ids.length)) {
      this.seal();
      this.buffer.fits(ids.length);
    }
    const doc = this.buffer.add(label, length, ids, tfs, this.dictionary.size);
    this.ordinalOf.set(label, this.buffer.base + doc);
    for (let i = 0; i < ids.length; i++) {
      if (this.dfs[ids[i]]++ === 0) this.unusedTerms--;
      if (countTrigrams) this.trigrams.count(ids[i], 1);
    }
    this.liveDocuments++;
    this.totalLength += length;
  }

  /**
   * Turns the buffer's live documents into a segment, then merges the newest segments while
   * {@link MERGE_FACTOR} of them are of the last one's size class or smaller: like a counter in
   * base MERGE_FACTOR, this keeps logarithmically many segments and rewrites each posting
   * logarithmically often.
   */
  private seal(): void {
    const buffer = this.buffer;
    if (buffer.count > buffer.dead) {
      const segment = sealBuffer(buffer);
      this.segments.push(segment);
      if (buffer.dead > 0) this.relocate(segment);
    }
    buffer.clear(buffer.base + buffer.count);
    const segments = this.segments;
    while (segments.length > 0) {
      const size = sizeClass(segments[segments.length - 1]);
      let from = segments.length - 1;
      while (from > 0 && sizeClass(segments[from - 1]) <= size) from--;
      if (segments.length - from < MERGE_FACTOR) return;
      this.merge(from, segments.length);
    }
  }

  /** Replaces segments `[from, to)` by one holding their live documents (none if they have none). */
  private merge(from: number, to: number): void {
    const merged = mergeSegments(this.segments.slice(from, to));
    this.relocate(merged);
    if (merged.size > 0) this.segments.splice(from, to - from, merged);
    else this.segments.splice(from, to - from);
  }

  /** Records where the documents of a newly written segment are. */
  private relocate(segment: Segment): void {
    for (let doc = 0; doc < segment.size; doc++) this.ordinalOf.set(segment.labels[doc], segment.base + doc);
  }

  /** Rewrites everything without removed documents and unused terms (renumbering the terms). */
  private rebuild(): void {
    Object.assign(this, FullTextIndex.fromState(this.toState(), this.options));
  }

  private newBuffer(base: number): DocumentBuffer {
    const { bufferDocuments = BUFFER_DOCUMENTS, bufferEntries = BUFFER_ENTRIES } = this.options;
    return new DocumentBuffer(base, bufferDocuments, bufferEntries);
  }
}

/**
 * The order of magnitude (base {@link MERGE_FACTOR}) of a segment's live postings: sizes compare
 * by it, so that segments sealed from similar buffers count as equal though their exact sizes
 * differ a little.
 */
function sizeClass(segment: Segment): number {
  return Math.floor(Math.log2(1 + (segment.postings * segment.liveCount) / segment.size) / Math.log2(MERGE_FACTOR));
}

/** Whether a segment (or the buffer) of `size` documents, `dead` of them removed, is worth rewriting. */
function mostlyDead(dead: number, size: number): boolean {
  return dead >= DEAD_MIN && dead > size * DEAD_SHARE;
}
