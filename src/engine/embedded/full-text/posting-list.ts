/**
 * The documents (ordinals, ascending) holding one term, with the term's weighted frequency in
 * each. Append-only: removed documents stay until the index compacts, and readers skip them. The
 * bounds (`maxTf`, `minLength`) only ever widen, so they stay valid upper bounds of a posting's
 * BM25 contribution after removals.
 */
export class PostingList {
  docs = new Uint32Array(2);
  tfs = new Uint16Array(2);
  length = 0;
  maxTf = 0;
  /** Shortest weighted length of a document in the list. */
  minLength = 0xffffffff;

  add(ordinal: number, tf: number, length: number): void {
    if (this.length === this.docs.length) {
      const docs = new Uint32Array(this.docs.length * 2);
      docs.set(this.docs);
      this.docs = docs;
      const tfs = new Uint16Array(this.tfs.length * 2);
      tfs.set(this.tfs);
      this.tfs = tfs;
    }
    const clamped = Math.min(tf, 0xffff);
    this.docs[this.length] = ordinal;
    this.tfs[this.length] = clamped;
    this.length++;
    if (clamped > this.maxTf) this.maxTf = clamped;
    if (length < this.minLength) this.minLength = length;
  }

  /** The first position at or after `from` whose ordinal is at least `target` (`length` if none), by galloping. */
  seek(from: number, target: number): number {
    const docs = this.docs;
    const end = this.length;
    if (from >= end || docs[from] >= target) return from;
    let step = 1;
    let low = from;
    let high = from + 1;
    while (high < end && docs[high] < target) {
      low = high;
      step *= 2;
      high = from + step;
    }
    if (high > end) high = end;
    // docs[low] < target; the answer is in (low, high]
    while (low + 1 < high) {
      const mid = (low + high) >>> 1;
      if (docs[mid] < target) low = mid;
      else high = mid;
    }
    return high;
  }
}
