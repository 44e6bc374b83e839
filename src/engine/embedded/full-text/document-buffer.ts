import { grow } from './typed-arrays.js';

/**
 * The documents written since the last segment was sealed, uncompressed and numbered locally from
 * 0 (global ordinal = `base` + local number). Each document's (term id, frequency) entries sit one
 * after another, and the entries of one term are chained in document order (`head`/`next` by term
 * id), so a query reads a term's postings here without scanning every entry. Its arrays have a
 * fixed capacity, reused after every seal.
 */
export class DocumentBuffer {
  /** Documents held (live and removed). */
  count = 0;
  /** Removed documents among them. */
  dead = 0;
  /** Entries held. */
  entries = 0;
  readonly labels: Float64Array;
  readonly lengths: Uint32Array;
  readonly live: Uint8Array;
  /** Document `d`'s entries are `starts[d] .. starts[d + 1]`. */
  readonly starts: Uint32Array;
  termIds: Uint32Array;
  tfs: Uint16Array;
  /** The document of each entry, and the next entry of the same term (-1 at the end of a chain). */
  docOf: Uint32Array;
  next: Int32Array;
  /** First and last entry of each term's chain, by term id (-1: none). */
  head = new Int32Array(1024).fill(-1);
  private tail = new Int32Array(1024).fill(-1);
  /** Ids of the terms with a chain, in the order they first occurred. */
  private touched = new Uint32Array(1024);
  private touchedCount = 0;

  constructor(
    /** Global ordinal of local document 0. */
    public base: number,
    readonly documentCapacity: number,
    private readonly entryCapacity: number,
  ) {
    this.labels = new Float64Array(documentCapacity);
    this.lengths = new Uint32Array(documentCapacity);
    this.live = new Uint8Array(documentCapacity);
    this.starts = new Uint32Array(documentCapacity + 1);
    this.termIds = new Uint32Array(entryCapacity);
    this.tfs = new Uint16Array(entryCapacity);
    this.docOf = new Uint32Array(entryCapacity);
    this.next = new Int32Array(entryCapacity);
  }

  /**
   * Whether a document with `terms` entries fits. An empty buffer makes room for any document (its
   * entry arrays are back to their usual capacity when it is cleared).
   */
  fits(terms: number): boolean {
    if (this.count === 0) {
      if (terms > this.termIds.length) this.growEntries(terms);
      return true;
    }
    return this.count < this.documentCapacity && this.entries + terms <= this.termIds.length;
  }

  /**
   * Appends a document (it must {@link fits}) with distinct term ids below `terms` and their
   * weighted frequencies (kept within 1 to 65535); returns its local number.
   */
  add(label: number, length: number, ids: ArrayLike<number>, tfs: ArrayLike<number>, terms: number): number {
    if (terms > this.head.length) this.growTerms(terms);
    const doc = this.count++;
    this.labels[doc] = label;
    this.lengths[doc] = length;
    this.live[doc] = 1;
    let entry = this.entries;
    for (let i = 0; i < ids.length; i++, entry++) {
      const id = ids[i];
      this.termIds[entry] = id;
      this.tfs[entry] = Math.max(1, Math.min(tfs[i], 0xffff));
      this.docOf[entry] = doc;
      this.next[entry] = -1;
      const last = this.tail[id];
      if (last < 0) {
        this.head[id] = entry;
        if (this.touchedCount === this.touched.length)
          this.touched = grow(this.touched, new Uint32Array(this.touched.length * 2));
        this.touched[this.touchedCount++] = id;
      } else {
        this.next[last] = entry;
      }
      this.tail[id] = entry;
    }
    this.entries = entry;
    this.starts[doc + 1] = entry;
    return doc;
  }

  /** Marks local document `doc` removed. */
  kill(doc: number): void {
    if (this.live[doc] === 0) return;
    this.live[doc] = 0;
    this.dead++;
  }

  /** Ids of the terms held, ascending. */
  termsAscending(): Uint32Array {
    return this.touched.slice(0, this.touchedCount).sort();
  }

  /** Empties the buffer for the documents that follow, from global ordinal `base`. */
  clear(base: number): void {
    for (let i = 0; i < this.touchedCount; i++) {
      this.head[this.touched[i]] = -1;
      this.tail[this.touched[i]] = -1;
    }
    this.touchedCount = 0;
    this.base = base;
    this.count = 0;
    this.dead = 0;
    this.entries = 0;
    if (this.termIds.length > this.entryCapacity) this.growEntries(this.entryCapacity);
  }

  private growTerms(terms: number): void {
    const size = Math.max(terms, this.head.length * 2);
    this.head = grow(this.head, new Int32Array(size).fill(-1));
    this.tail = grow(this.tail, new Int32Array(size).fill(-1));
  }

  /** Replaces the (empty) entry arrays with ones of `entries` entries. */
  private growEntries(entries: number): void {
    this.termIds = new Uint32Array(entries);
    this.tfs = new Uint16Array(entries);
    this.docOf = new Uint32Array(entries);
    this.next = new Int32Array(entries);
  }
}
