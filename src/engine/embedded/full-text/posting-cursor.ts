import { BLOCK_SIZE } from './block-codec.js';
import { contribution, lengthNorm } from './bm25.js';
import type { Segment } from './segment.js';

/** Blocks a window bound is taken over at most; past them the term's bound in the segment serves. */
const WINDOW_BLOCKS = 8;

/** A query term as scored: its text (for the canonical order), global id and IDF. */
export interface ScoredTerm {
  term: string;
  id: number;
  idf: number;
  /** The term adds to the scores of documents other terms match, and matches none by itself. */
  optional: boolean;
}

/**
 * One query term's postings in one segment, read a block at a time. Two positions move forward
 * only: `block`, the first block not wholly before the window being scored (moved by
 * {@link advanceShallow}, which decodes nothing), and the block of the last lookup
 * ({@link tfAt}, {@link boundAt}); lookups must come in ascending document order. The block
 * decoded last is kept, so lookups inside it decode nothing.
 */
export class PostingCursor {
  readonly docs = new Int32Array(BLOCK_SIZE);
  readonly tfs = new Int32Array(BLOCK_SIZE);
  private segment: Segment | undefined;
  /** The term's index in the segment, and its blocks `[block, end)` still ahead. */
  private term = 0;
  block = 0;
  private end = 0;
  private probe = 0;
  private decoded = -1;
  /** Whether the frequencies of the decoded block are in {@link tfs} (they are decoded only for accumulation). */
  private tfsDecoded = false;
  private count = 0;
  /** Lookup position in the decoded block (see {@link tfAt}). */
  private position = 0;
  /** Accumulation position in the decoded block (see {@link accumulate}). */
  private accumulated = 0;
  private boundBlock = -1;
  private bound = 0;
  /** Scratch of the block-max search: the term's bound over the current window, and whether it leads there. */
  windowBound = 0;
  essential = true;

  constructor(
    readonly id: number,
    readonly idf: number,
    /** Position of the term in the canonical order (by text) in which contributions are summed. */
    readonly rank: number,
    /** Average weighted document length that BM25 normalizes by. */
    private readonly average: number,
    /** See {@link ScoredTerm.optional}. */
    readonly optional = false,
  ) {}

  /** Reads term `term` (its local index) of `segment`, from its first block. */
  open(segment: Segment, term: number): void {
    this.segment = segment;
    this.term = term;
    this.block = segment.termBlocks[term];
    this.end = segment.termBlocks[term + 1];
    this.probe = this.block;
    this.decoded = -1;
    this.boundBlock = -1;
  }

  /** BM25 contribution of `tf` to a document of weighted length `length`. */
  score(tf: number, length: number): number {
    return contribution(this.idf, tf, lengthNorm(length, this.average));
  }

  /** An upper bound of the term's contribution anywhere in the segment. */
  termBound(): number {
    const segment = this.segment!;
    return this.score(segment.termMaxTf[this.term], segment.termMinLength[this.term]);
  }

  /** An upper bound of the term's contribution inside block `block`. */
  blockBound(block: number): number {
    const segment = this.segment!;
    return this.score(segment.blockMaxTf[block], segment.blockMinLength[block]);
  }

  /** Moves to the first block that may hold a document from `target` on; false when there is none. */
  advanceShallow(target: number): boolean {
    this.block = this.seek(this.block, target);
    return this.block < this.end;
  }

  /**
   * An upper bound of the term's contribution to documents up to `last` (from `block`): the
   * largest {@link blockBound} of the blocks there, or the {@link termBound} when they are many.
   */
  windowMax(last: number): number {
    const segment = this.segment!;
    const end = Math.min(this.end, this.block + WINDOW_BLOCKS);
    let max = 0;
    let b = this.block;
    for (; b < end && segment.blockStart(this.term, b) <= last; b++) {
      const bound = this.blockBound(b);
      if (bound > max) max = bound;
    }
    return b === end && b < this.end && segment.blockStart(this.term, b) <= last ? this.termBound() : max;
  }

  /**
   * Adds the term's contribution to each of its documents in `[first, last]` into
   * `sums[doc - first]`, and sets their bits in `seen`.
   */
  accumulate(first: number, last: number, sums: Float64Array, seen: Uint32Array, lengths: Uint32Array): void {
    const segment = this.segment!;
    const { docs, tfs, idf, average } = this;
    for (let b = this.block; b < this.end && segment.blockStart(this.term, b) <= last; b++) {
      if (this.decoded !== b) this.load(b);
      const count = this.count;
      if (!this.tfsDecoded) {
        segment.decodeTfs(b, count, tfs);
        this.tfsDecoded = true;
      }
      // Windows ascend: a block spanning several is resumed where the previous window stopped.
      let i = this.accumulated;
      while (docs[i] < first) i++;
      for (; i < count; i++) {
        const doc = docs[i];
        if (doc > last) {
          this.accumulated = i;
          return;
        }
        const slot = doc - first;
        sums[slot] += contribution(idf, tfs[i], lengthNorm(lengths[doc], average));
        seen[slot >>> 5] |= 1 << (slot & 31);
      }
      this.accumulated = count;
    }
  }

  /** The term's weighted frequency in document `doc` (0 if it does not hold the term). */
  tfAt(doc: number): number {
    const block = this.seek(this.probe > this.block ? this.probe : this.block, doc);
    this.probe = block;
    if (block === this.end) return 0;
    if (this.decoded !== block) this.load(block);
    const docs = this.docs;
    let p = this.position;
    while (docs[p] < doc) p++;
    this.position = p;
    if (docs[p] !== doc) return 0;
    return this.tfsDecoded ? this.tfs[p] : this.segment!.tfAt(block, this.count, p);
  }

  /** {@link blockBound} of the block that may hold document `doc` (0 past the last block). */
  boundAt(doc: number): number {
    const block = this.seek(this.probe > this.block ? this.probe : this.block, doc);
    this.probe = block;
    if (block === this.end) return 0;
    if (this.boundBlock !== block) {
      this.boundBlock = block;
      this.bound = this.blockBound(block);
    }
    return this.bound;
  }

  private load(block: number): void {
    this.count = this.segment!.decodeDocs(this.term, block, this.docs);
    this.tfsDecoded = false;
    this.decoded = block;
    this.position = 0;
    this.accumulated = 0;
  }

  /** The first block from `from` whose last document is at least `target` (`end` if none), galloping. */
  private seek(from: number, target: number): number {
    const last = this.segment!.blockLast;
    const end = this.end;
    if (from >= end || last[from] >= target) return from;
    let low = from;
    let step = 1;
    let high = from + 1;
    while (high < end && last[high] < target) {
      low = high;
      step *= 2;
      high = from + step;
    }
    if (high > end) high = end;
    while (low + 1 < high) {
      const mid = (low + high) >>> 1;
      if (last[mid] < target) low = mid;
      else high = mid;
    }
    return high;
  }
}
