import { grow } from './typed-arrays.js';

/**
 * The character trigrams of a full-text dictionary's terms and how often each trigram occurs over
 * the live documents' distinct terms (the builtin embedder weights trigram features by it). Terms
 * are numbered densely in the order they are added, so their trigram ids sit term after term in
 * one array (term `id`'s at [start[id], start[id + 1])): the write path reads them for every
 * term of every document, and one flat array is far kinder to the cache than an array per term.
 */
export class TermTrigrams {
  private readonly ids = new Map<string, number>();
  private start = new Uint32Array(1024);
  private termTrigramIds = new Int32Array(8192);
  private counts = new Int32Array(1024);
  private terms = 0;

  /** Registers the next term by its trigrams (`termTrigrams`); its id is the number of terms registered before it. */
  addTerm(trigrams: readonly string[]): void {
    const id = this.terms++;
    if (id + 2 > this.start.length) this.start = grow(this.start, new Uint32Array(this.start.length * 2));
    const start = this.start[id];
    if (start + trigrams.length > this.termTrigramIds.length) {
      const size = Math.max(start + trigrams.length, this.termTrigramIds.length * 2);
      this.termTrigramIds = grow(this.termTrigramIds, new Int32Array(size));
    }
    for (let i = 0; i < trigrams.length; i++) this.termTrigramIds[start + i] = this.idOf(trigrams[i]);
    this.start[id + 1] = start + trigrams.length;
  }

  /** Counts the trigrams of term `termId` once more (a document holding it was added) or once less. */
  count(termId: number, delta: number): void {
    for (let i = this.start[termId]; i < this.start[termId + 1]; i++) this.counts[this.termTrigramIds[i]] += delta;
  }

  /** Occurrences of a trigram over the live documents' distinct terms. */
  frequency(trigram: string): number {
    const id = this.ids.get(trigram);
    return id === undefined ? 0 : this.counts[id];
  }

  /** Writes the occurrences of term `termId`'s trigrams (in `termTrigrams` order) into `out`, which it may replace; returns it. */
  frequenciesOf(termId: number, out: Int32Array): Int32Array {
    const start = this.start[termId];
    const count = this.start[termId + 1] - start;
    const into = out.length < count ? new Int32Array(count * 2) : out;
    for (let i = 0; i < count; i++) into[i] = this.counts[this.termTrigramIds[start + i]];
    return into;
  }

  private idOf(trigram: string): number {
    let id = this.ids.get(trigram);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(trigram, id);
      if (id === this.counts.length) this.counts = grow(this.counts, new Int32Array(id * 2));
    }
    return id;
  }
}
