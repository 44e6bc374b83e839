import { type Scored, TopK } from '../vector-math.js';
import { contribution, lengthNorm, SLACK } from './bm25.js';
import type { DocumentBuffer } from './document-buffer.js';
import { scoreBuffer } from './exact-scores.js';
import type { PostingCursor } from './posting-cursor.js';
import type { Segment } from './segment.js';

/** Widest window of documents scored at once (the accumulators' size). */
const WINDOW_MAX = 1 << 14;
/** Per-window accumulators, shared (a search runs to completion before another starts). */
const sums = new Float64Array(WINDOW_MAX);
const seen = new Uint32Array(WINDOW_MAX >>> 5);

/**
 * Exact top-k BM25 retrieval over segments with Block-Max MaxScore (Chakrabarti et al. 2011;
 * Mallia et al. 2019), in windows as Lucene's MaxScoreBulkScorer does. A segment is scored window
 * by window, a window ending where the block of a term that led the previous one ends. In each
 * window every term's bound is the largest block-max bound of its blocks there; ordered by it, the
 * smallest terms whose bounds add up below the current k-th score are non-essential. A window
 * where no term is essential is skipped undecoded. Otherwise the essential terms' postings are
 * accumulated term at a time into per-document sums; a candidate whose sum plus the non-essential
 * bounds cannot reach the k-th score is dropped, the others are completed by looking up the
 * non-essential terms, highest bound first, while the sum plus the block-max bounds of the
 * blocks holding the candidate can still reach it. Bounds are compared with {@link SLACK}, ties
 * with the k-th score are always scored, and every score is summed in the canonical order, so
 * the result is exactly the exhaustive one: same documents, same order, same scores to the bit.
 * Optional terms (an expansion's) take part like the others, by their bounds, so that the many
 * small ones stay non-essential; a completed candidate none of the selecting terms holds is
 * dropped.
 */
export class BlockMaxScore {
  private readonly top: TopK;
  private threshold = Number.NEGATIVE_INFINITY;
  /** Cursors of the terms held by the segment being searched, ordered by window bound. */
  private readonly active: PostingCursor[] = [];
  /** Contributions to the candidate being scored, by canonical rank. */
  private readonly contributions: Float64Array;
  /** Prefix sums of the window bounds, by position in {@link active}. */
  private readonly prefix: Float64Array;
  /** The candidate's frequencies of the non-essential terms, by position in {@link active}. */
  private readonly found: Int32Array;

  constructor(
    /** One per query term, ranks 0 to n − 1. */
    private readonly cursors: readonly PostingCursor[],
    k: number,
    private readonly average: number,
    private readonly filter: ReadonlySet<number> | undefined,
  ) {
    this.top = new TopK(k);
    this.contributions = new Float64Array(cursors.length);
    this.prefix = new Float64Array(cursors.length);
    this.found = new Int32Array(cursors.length);
  }

  /** Best first, ties by label. */
  results(): Scored[] {
    return this.top.sorted();
  }

  /** Adds the segment's documents to the top k. */
  search(segment: Segment): void {
    const active = this.active;
    active.length = 0;
    let total = 0;
    let selecting = false;
    for (const cursor of this.cursors) {
      const j = segment.termIndex(cursor.id);
      if (j < 0) continue;
      cursor.open(segment, j);
      cursor.essential = true;
      total += cursor.termBound();
      active.push(cursor);
      selecting ||= !cursor.optional;
    }
    if (!selecting || total * SLACK < this.threshold) return;
    const { live, labels, blockLast } = segment;
    const { filter } = this;
    const size = segment.size;
    const prefix = this.prefix;
    for (let first = 0; first < size; ) {
      let last = Math.min(size - 1, first + WINDOW_MAX - 1);
      let count = 0;
      let selecting = false;
      for (const cursor of active) {
        if (!cursor.advanceShallow(first)) continue;
        active[count++] = cursor;
        selecting ||= !cursor.optional;
        if (cursor.essential && blockLast[cursor.block] < last) last = blockLast[cursor.block];
      }
      active.length = count;
      if (!selecting) return;
      for (const cursor of active) cursor.windowBound = cursor.windowMax(last);
      sortByWindowBound(active);
      let sum = 0;
      for (let i = 0; i < count; i++) prefix[i] = sum += active[i].windowBound;
      let essential = 0;
      while (essential < count && prefix[essential] * SLACK < this.threshold) essential++;
      for (let i = 0; i < count; i++) active[i].essential = i >= essential;
      if (essential === count) {
        // Nothing here can reach the top k: skip the window; the strongest term leads the next one.
        active[count - 1].essential = true;
        first = last + 1;
        continue;
      }
      for (let i = essential; i < count; i++) active[i].accumulate(first, last, sums, seen, segment.lengths);
      const rest = essential > 0 ? prefix[essential - 1] : 0;
      // What the essential terms must add up to for a candidate to be completed.
      let need = this.threshold / SLACK - rest;
      const words = ((last - first) >>> 5) + 1;
      for (let w = 0; w < words; w++) {
        let word = seen[w];
        if (word === 0) continue;
        seen[w] = 0;
        while (word !== 0) {
          const slot = (w << 5) | (31 - Math.clz32(word & -word));
          word &= word - 1;
          const partial = sums[slot];
          sums[slot] = 0;
          const doc = first + slot;
          if (live[doc] === 0 || partial < need) continue;
          if (filter !== undefined && !filter.has(labels[doc])) continue;
          this.scoreCandidate(segment, doc, essential, partial);
          need = this.threshold / SLACK - rest;
        }
      }
      first = last + 1;
    }
  }

  /** Adds the buffer's documents to the top k (scored exhaustively: the buffer is small). */
  searchBuffer(buffer: DocumentBuffer): void {
    const { live, labels } = buffer;
    scoreBuffer(buffer, this.cursors, this.cursors.length, this.average, (doc, score) => {
      if (live[doc] === 0 || (this.filter && !this.filter.has(labels[doc]))) return;
      this.push(labels[doc], score);
    });
  }

  /**
   * Completes a candidate of the window whose essential terms sum to `partial` (in accumulation
   * order, hence only for pruning): the non-essential terms (`active[0 .. essential]`) are looked
   * up, highest bound first, while the bounds of their blocks holding the candidate say it can
   * still reach the top k; then its exact score is summed in the canonical order.
   */
  private scoreCandidate(segment: Segment, doc: number, essential: number, partial: number): void {
    const { active, contributions, prefix, found } = this;
    const norm = lengthNorm(segment.lengths[doc], this.average);
    let score = partial;
    for (let i = essential - 1; i >= 0; i--) {
      const below = i > 0 ? prefix[i - 1] : 0;
      if ((score + prefix[i]) * SLACK < this.threshold) return;
      const cursor = active[i];
      if ((score + cursor.boundAt(doc) + below) * SLACK < this.threshold) return;
      const tf = cursor.tfAt(doc);
      found[i] = tf;
      if (tf > 0) score += contribution(cursor.idf, tf, norm);
    }
    for (let r = 0; r < contributions.length; r++) contributions[r] = 0;
    let selected = false;
    for (let i = 0; i < active.length; i++) {
      const cursor = active[i];
      const tf = i < essential ? found[i] : cursor.tfAt(doc);
      if (tf > 0) contributions[cursor.rank] = contribution(cursor.idf, tf, norm);
      selected ||= tf > 0 && !cursor.optional;
    }
    // Optional terms may lead where their bounds are high; a document they alone hold is no match.
    if (!selected) return;
    let exact = 0;
    for (let r = 0; r < contributions.length; r++) exact += contributions[r];
    this.push(segment.labels[doc], exact);
  }

  private push(label: number, score: number): void {
    if (score <= 0) return;
    this.top.push(label, score);
    if (this.top.full) this.threshold = this.top.minScore;
  }
}

/** Insertion sort by ascending window bound (a query has few terms). */
function sortByWindowBound(cursors: PostingCursor[]): void {
  for (let i = 1; i < cursors.length; i++) {
    const cursor = cursors[i];
    let j = i - 1;
    for (; j >= 0 && cursors[j].windowBound > cursor.windowBound; j--) cursors[j + 1] = cursors[j];
    cursors[j + 1] = cursor;
  }
}
