import { BLOCK_SIZE, bitWidth, packBits, packedWords } from './block-codec.js';
import { encodeTermIds, MAX_TERM_ID_BYTES, Segment } from './segment.js';

/** A typed array of at least `size` elements holding `array`'s, grown geometrically. */
function reserve<T extends Uint8Array | Uint16Array | Uint32Array>(array: T, size: number): T {
  if (size <= array.length) return array;
  const grown = new (array.constructor as new (length: number) => T)(Math.max(size, array.length * 2));
  grown.set(array);
  return grown;
}

/** `array` if it has `length` elements, else a copy of its first `length`. */
function exact<T extends Uint8Array | Uint16Array | Uint32Array | Float64Array>(array: T, length: number): T {
  return array.length === length ? array : (array.slice(0, length) as T);
}

/**
 * Builds a {@link Segment}: documents first, in their new local order, then each term's postings
 * in ascending term id. Its arrays grow while it writes; {@link finish} copies them to exact size,
 * so a segment carries no slack.
 */
export class SegmentWriter {
  private readonly labels: Float64Array;
  private readonly lengths: Uint32Array;
  private readonly forwardOffsets: Uint32Array;
  private forward: Uint8Array;
  /** Documents written. */
  documents = 0;
  private terms: Uint32Array;
  private termBlocks: Uint32Array;
  private termPostings: Uint32Array;
  private termMaxTf: Uint16Array;
  private termMinLength: Uint32Array;
  private termCount = 0;
  private blockLast: Uint32Array;
  private blockOffsets: Uint32Array;
  private blockWidths: Uint16Array;
  private blockMaxTf: Uint16Array;
  private blockMinLength: Uint32Array;
  private blockCount = 0;
  private data: Uint32Array;
  private readonly gaps = new Int32Array(BLOCK_SIZE);
  private readonly frequencies = new Int32Array(BLOCK_SIZE);

  /**
   * For `documents` documents exactly; the other sizes are estimates (arrays grow past them), good
   * ones saving the copies of growing.
   */
  constructor(documents: number, estimate: { forwardBytes: number; terms: number; blocks: number; words: number }) {
    this.labels = new Float64Array(documents);
    this.lengths = new Uint32Array(documents);
    this.forwardOffsets = new Uint32Array(documents + 1);
    this.forward = new Uint8Array(Math.max(16, estimate.forwardBytes));
    const terms = Math.max(16, estimate.terms);
    this.terms = new Uint32Array(terms);
    this.termBlocks = new Uint32Array(terms + 1);
    this.termPostings = new Uint32Array(terms);
    this.termMaxTf = new Uint16Array(terms);
    this.termMinLength = new Uint32Array(terms);
    const blocks = Math.max(16, estimate.blocks);
    this.blockLast = new Uint32Array(blocks);
    this.blockOffsets = new Uint32Array(blocks + 1);
    this.blockWidths = new Uint16Array(blocks);
    this.blockMaxTf = new Uint16Array(blocks);
    this.blockMinLength = new Uint32Array(blocks);
    this.data = new Uint32Array(Math.max(64, estimate.words));
  }

  /** Appends a document whose forward entries (see segment.ts) are `forward[from .. to]`; returns its local number. */
  addDocument(label: number, length: number, forward: Uint8Array, from: number, to: number): number {
    const doc = this.documents++;
    this.labels[doc] = label;
    this.lengths[doc] = length;
    const offset = this.forwardOffsets[doc];
    this.forward = reserve(this.forward, offset + to - from);
    this.forward.set(forward.subarray(from, to), offset);
    this.forwardOffsets[doc + 1] = offset + to - from;
    return doc;
  }

  /** Appends a document given its term ids, ascending (`ids[from .. to]`); returns its local number. */
  addDocumentTerms(label: number, length: number, ids: Uint32Array, from: number, to: number): number {
    const doc = this.documents++;
    this.labels[doc] = label;
    this.lengths[doc] = length;
    const offset = this.forwardOffsets[doc];
    this.forward = reserve(this.forward, offset + (to - from) * MAX_TERM_ID_BYTES);
    this.forwardOffsets[doc + 1] = encodeTermIds(ids, from, to, this.forward, offset);
    return doc;
  }

  /**
   * Appends the postings `[from, to)` of term `id` (above the previous term's): ascending local
   * numbers of documents already added, and weighted frequencies (1 to 65535).
   */
  addTerm(id: number, docs: Int32Array, tfs: Int32Array, from: number, to: number): void {
    const t = this.termCount++;
    if (t + 1 === this.terms.length) {
      const size = this.terms.length * 2;
      this.terms = reserve(this.terms, size);
      this.termBlocks = reserve(this.termBlocks, size + 1);
      this.termPostings = reserve(this.termPostings, size);
      this.termMaxTf = reserve(this.termMaxTf, size);
      this.termMinLength = reserve(this.termMinLength, size);
    }
    this.terms[t] = id;
    this.termPostings[t] = to - from;
    let termMaxTf = 0;
    let termMinLength = 0xffffffff;
    for (let start = from; start < to; start += BLOCK_SIZE) {
      const end = Math.min(to, start + BLOCK_SIZE);
      const n = end - start;
      let previous = start === from ? -1 : docs[start - 1];
      let gapBits = 0;
      let tfBits = 0;
      let maxTf = 0;
      let minLength = 0xffffffff;
      for (let i = start; i < end; i++) {
        const doc = docs[i];
        const gap = doc - previous - 1;
        previous = doc;
        const tf = tfs[i];
        this.gaps[i - start] = gap;
        this.frequencies[i - start] = tf - 1;
        gapBits |= gap;
        tfBits |= tf - 1;
        if (tf > maxTf) maxTf = tf;
        const length = this.lengths[doc];
        if (length < minLength) minLength = length;
      }
      const gapWidth = bitWidth(gapBits);
      const tfWidth = bitWidth(tfBits);
      const b = this.addBlock(packedWords(n, gapWidth) + packedWords(n, tfWidth));
      const offset = packBits(this.gaps, n, gapWidth, this.data, this.blockOffsets[b]);
      packBits(this.frequencies, n, tfWidth, this.data, offset);
      this.blockLast[b] = previous;
      this.blockWidths[b] = gapWidth | (tfWidth << 8);
      this.blockMaxTf[b] = maxTf;
      this.blockMinLength[b] = minLength;
      if (maxTf > termMaxTf) termMaxTf = maxTf;
      if (minLength < termMinLength) termMinLength = minLength;
    }
    this.termBlocks[t + 1] = this.blockCount;
    this.termMaxTf[t] = termMaxTf;
    this.termMinLength[t] = termMinLength;
  }

  /** The segment written, its arrays copied to exact size. */
  finish(base: number): Segment {
    const terms = this.termCount;
    const blocks = this.blockCount;
    return new Segment(base, {
      labels: exact(this.labels, this.documents),
      lengths: exact(this.lengths, this.documents),
      forwardOffsets: exact(this.forwardOffsets, this.documents + 1),
      forward: exact(this.forward, this.forwardOffsets[this.documents]),
      terms: exact(this.terms, terms),
      termBlocks: exact(this.termBlocks, terms + 1),
      termPostings: exact(this.termPostings, terms),
      termMaxTf: exact(this.termMaxTf, terms),
      termMinLength: exact(this.termMinLength, terms),
      blockLast: exact(this.blockLast, blocks),
      blockOffsets: exact(this.blockOffsets, blocks + 1),
      blockWidths: exact(this.blockWidths, blocks),
      blockMaxTf: exact(this.blockMaxTf, blocks),
      blockMinLength: exact(this.blockMinLength, blocks),
      data: exact(this.data, this.blockOffsets[blocks]),
    });
  }

  /** Opens the next block with `words` words of data; returns its number. */
  private addBlock(words: number): number {
    const b = this.blockCount++;
    if (b + 1 === this.blockLast.length) {
      const size = this.blockLast.length * 2;
      this.blockLast = reserve(this.blockLast, size);
      this.blockOffsets = reserve(this.blockOffsets, size + 1);
      this.blockWidths = reserve(this.blockWidths, size);
      this.blockMaxTf = reserve(this.blockMaxTf, size);
      this.blockMinLength = reserve(this.blockMinLength, size);
    }
    const end = this.blockOffsets[b] + words;
    this.data = reserve(this.data, end);
    this.blockOffsets[b + 1] = end;
    return b;
  }
}
