import { BLOCK_SIZE, packedWords, unpackBits, unpackOne } from './block-codec.js';

/** The arrays of a segment, each sized exactly (see {@link Segment}). */
export interface SegmentParts {
  labels: Float64Array;
  lengths: Uint32Array;
  forwardOffsets: Uint32Array;
  forward: Uint8Array;
  terms: Uint32Array;
  termBlocks: Uint32Array;
  termPostings: Uint32Array;
  termMaxTf: Uint16Array;
  termMinLength: Uint32Array;
  blockLast: Uint32Array;
  blockOffsets: Uint32Array;
  blockWidths: Uint16Array;
  blockMaxTf: Uint16Array;
  blockMinLength: Uint32Array;
  data: Uint32Array;
}

/**
 * An immutable slice of a full-text index: the documents written in one stretch of time, numbered
 * locally from 0 in the order they were written (global ordinal = `base` + local number), with
 * their inverted and forward index. Only the live marks change after it is built: a removed
 * document stays in the postings until the segment is merged.
 *
 * Terms are listed by ascending global id, each with its postings in blocks of {@link BLOCK_SIZE}
 * (the last one shorter). A block is bit-packed (block-codec.ts): local-number gaps minus one, then
 * term frequencies minus one, each at its own width; beside it are its last local number (for
 * skipping without decoding) and its largest frequency and shortest document length (an upper
 * bound of BM25 inside it). The forward index holds each document's term ids, ascending, as
 * variable-byte gaps: what a removal needs to update the index's statistics.
 */
export class Segment implements SegmentParts {
  readonly labels: Float64Array;
  readonly lengths: Uint32Array;
  /** Document `d`'s forward entries are `forward[forwardOffsets[d] .. forwardOffsets[d + 1])`. */
  readonly forwardOffsets: Uint32Array;
  readonly forward: Uint8Array;
  /** Global term ids held, ascending; term `j`'s blocks are `termBlocks[j] .. termBlocks[j + 1]`. */
  readonly terms: Uint32Array;
  readonly termBlocks: Uint32Array;
  readonly termPostings: Uint32Array;
  readonly termMaxTf: Uint16Array;
  readonly termMinLength: Uint32Array;
  readonly blockLast: Uint32Array;
  /** Block `b` is `data[blockOffsets[b] .. blockOffsets[b + 1])`. */
  readonly blockOffsets: Uint32Array;
  /** Gap width in the low byte, frequency width in the high byte. */
  readonly blockWidths: Uint16Array;
  readonly blockMaxTf: Uint16Array;
  readonly blockMinLength: Uint32Array;
  readonly data: Uint32Array;
  /** 1 for a live document, 0 for a removed one. */
  readonly live: Uint8Array;
  /** Removed documents still held. */
  dead = 0;
  /** Postings held (removed documents' included). */
  readonly postings: number;

  constructor(
    /** Global ordinal of local document 0. */
    readonly base: number,
    parts: SegmentParts,
  ) {
    this.labels = parts.labels;
    this.lengths = parts.lengths;
    this.forwardOffsets = parts.forwardOffsets;
    this.forward = parts.forward;
    this.terms = parts.terms;
    this.termBlocks = parts.termBlocks;
    this.termPostings = parts.termPostings;
    this.termMaxTf = parts.termMaxTf;
    this.termMinLength = parts.termMinLength;
    this.blockLast = parts.blockLast;
    this.blockOffsets = parts.blockOffsets;
    this.blockWidths = parts.blockWidths;
    this.blockMaxTf = parts.blockMaxTf;
    this.blockMinLength = parts.blockMinLength;
    this.data = parts.data;
    this.live = new Uint8Array(parts.labels.length).fill(1);
    let postings = 0;
    for (let j = 0; j < this.termPostings.length; j++) postings += this.termPostings[j];
    this.postings = postings;
  }

  /** Document slots (live and removed). */
  get size(): number {
    return this.labels.length;
  }

  get liveCount(): number {
    return this.labels.length - this.dead;
  }

  /** The local index of global term `id`, or -1 when no document here holds it. */
  termIndex(id: number): number {
    const terms = this.terms;
    let low = 0;
    let high = terms.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const value = terms[mid];
      if (value < id) low = mid + 1;
      else if (value > id) high = mid - 1;
      else return mid;
    }
    return -1;
  }

  /** Postings in block `block` of term `j`. */
  blockCount(j: number, block: number): number {
    const last = this.termBlocks[j + 1] - 1;
    return block < last ? BLOCK_SIZE : this.termPostings[j] - BLOCK_SIZE * (last - this.termBlocks[j]);
  }

  /** Lowest local number block `block` of term `j` can hold (one past the previous block's last). */
  blockStart(j: number, block: number): number {
    return block === this.termBlocks[j] ? 0 : this.blockLast[block - 1] + 1;
  }

  /** Decodes block `block` of term `j` into local numbers and frequencies; returns its posting count. */
  decodeBlock(j: number, block: number, docs: Int32Array, tfs: Int32Array): number {
    const count = this.decodeDocs(j, block, docs);
    this.decodeTfs(block, count, tfs);
    return count;
  }

  /** Decodes the local numbers of block `block` of term `j`; returns how many there are. */
  decodeDocs(j: number, block: number, docs: Int32Array): number {
    const count = this.blockCount(j, block);
    const width = this.blockWidths[block] & 0xff;
    unpackBits(this.data, this.blockOffsets[block], count, width, docs, true, this.blockStart(j, block) - 1);
    return count;
  }

  /** Decodes the frequencies of block `block`, which holds `count` postings. */
  decodeTfs(block: number, count: number, tfs: Int32Array): void {
    const widths = this.blockWidths[block];
    unpackBits(
      this.data,
      this.blockOffsets[block] + packedWords(count, widths & 0xff),
      count,
      widths >>> 8,
      tfs,
      false,
    );
  }

  /** Frequency `index` of block `block`, which holds `count` postings. */
  tfAt(block: number, count: number, index: number): number {
    const widths = this.blockWidths[block];
    return 1 + unpackOne(this.data, this.blockOffsets[block] + packedWords(count, widths & 0xff), index, widths >>> 8);
  }

  /** Calls `visit` with each term id of local document `doc`, ascending. */
  forEachTerm(doc: number, visit: (id: number) => void): void {
    const end = this.forwardOffsets[doc + 1];
    let id = -1;
    for (let p = this.forwardOffsets[doc]; p < end; p = gapEnd) {
      id += readGap(this.forward, p) + 1;
      visit(id);
    }
  }

  /**
   * Sets `held[k]` to whether local document `doc` holds term `ids[k]`, for term ids ascending;
   * its forward entries are read only as far as the last of them.
   */
  holds(doc: number, ids: Int32Array, held: Uint8Array): void {
    held.fill(0);
    const end = this.forwardOffsets[doc + 1];
    const last = ids[ids.length - 1];
    let k = 0;
    let id = -1;
    for (let p = this.forwardOffsets[doc]; p < end && id < last; p = gapEnd) {
      id += readGap(this.forward, p) + 1;
      while (ids[k] < id) k++;
      if (ids[k] === id) held[k] = 1;
    }
  }

  /** Terms of local document `doc`. */
  termCount(doc: number): number {
    let count = 0;
    for (let p = this.forwardOffsets[doc]; p < this.forwardOffsets[doc + 1]; p++) if (this.forward[p] < 0x80) count++;
    return count;
  }

  /** Marks local document `doc` removed. */
  kill(doc: number): void {
    if (this.live[doc] === 0) return;
    this.live[doc] = 0;
    this.dead++;
  }
}

/** Where the gap {@link readGap} read last ends. */
let gapEnd = 0;

/** The variable-byte gap (see {@link encodeTermIds}) at `bytes[p]`; sets {@link gapEnd}. */
function readGap(bytes: Uint8Array, p: number): number {
  let gap = 0;
  let shift = 0;
  let byte: number;
  do {
    byte = bytes[p++];
    gap |= (byte & 0x7f) << shift;
    shift += 7;
  } while (byte & 0x80);
  gapEnd = p;
  return gap;
}

/** Appends the variable-byte gaps of ascending term ids `ids[from .. to]` to `out` from `offset`; returns the end. */
export function encodeTermIds(ids: Uint32Array, from: number, to: number, out: Uint8Array, offset: number): number {
  let o = offset;
  let previous = -1;
  for (let i = from; i < to; i++) {
    let gap = ids[i] - previous - 1;
    previous = ids[i];
    while (gap >= 0x80) {
      out[o++] = (gap & 0x7f) | 0x80;
      gap = Math.floor(gap / 0x80);
    }
    out[o++] = gap;
  }
  return o;
}

/** Bytes {@link encodeTermIds} takes at most for `count` ids. */
export const MAX_TERM_ID_BYTES = 5;
