import { fnv1aRange } from './hashing.js';

/** Words held at most per slot, as a share of the slots (open addressing stays short-probed below it). */
const MAX_LOAD = 0.5;

/**
 * Folded words (lowercase letters and digits) mapped to values, in an open-addressing table that
 * can also be probed with a word still inside an ASCII text (its start and end there), so that
 * the words of a document already met need neither a string of their own nor a lowercased copy
 * of the text: its characters are hashed and compared where they are, folded on the fly.
 */
export class WordMemory<V> {
  /** Each slot's word hash (0: empty; a hash is made odd, so never 0), word and value. */
  private hashes = new Int32Array(1024);
  private words: (string | undefined)[] = new Array(1024).fill(undefined);
  private values: (V | undefined)[] = new Array(1024).fill(undefined);
  /** Words held. */
  size = 0;

  /** The slot of `word`, or -1. */
  find(word: string): number {
    const hash = fnv1aRange(word, 0, word.length, false) | 1;
    const mask = this.hashes.length - 1;
    for (let slot = hash & mask; this.hashes[slot] !== 0; slot = (slot + 1) & mask) {
      if (this.hashes[slot] === hash && this.words[slot] === word) return slot;
    }
    return -1;
  }

  /** The slot of the word `text[start .. end]` (ASCII letters and digits, folded to lowercase), or -1. */
  findIn(text: string, start: number, end: number): number {
    const hash = fnv1aRange(text, start, end, true) | 1;
    const mask = this.hashes.length - 1;
    for (let slot = hash & mask; this.hashes[slot] !== 0; slot = (slot + 1) & mask) {
      if (this.hashes[slot] === hash && sameWord(this.words[slot]!, text, start, end)) return slot;
    }
    return -1;
  }

  /** Adds `word` (not held) with `value`; returns its slot. */
  insert(word: string, value: V): number {
    if (this.size + 1 > this.hashes.length * MAX_LOAD) this.rehash(this.hashes.length * 2);
    const hash = fnv1aRange(word, 0, word.length, false) | 1;
    const mask = this.hashes.length - 1;
    let slot = hash & mask;
    while (this.hashes[slot] !== 0) slot = (slot + 1) & mask;
    this.hashes[slot] = hash;
    this.words[slot] = word;
    this.values[slot] = value;
    this.size++;
    return slot;
  }

  wordAt(slot: number): string {
    return this.words[slot]!;
  }

  valueAt(slot: number): V {
    return this.values[slot]!;
  }

  clear(): void {
    this.hashes.fill(0);
    this.words.fill(undefined);
    this.values.fill(undefined);
    this.size = 0;
  }

  private rehash(slots: number): void {
    const { hashes, words, values } = this;
    this.hashes = new Int32Array(slots);
    this.words = new Array(slots).fill(undefined);
    this.values = new Array(slots).fill(undefined);
    this.size = 0;
    for (let slot = 0; slot < hashes.length; slot++) if (hashes[slot] !== 0) this.insert(words[slot]!, values[slot]!);
  }
}

/** Whether `word` is `text[start .. end]` folded to lowercase (ASCII letters and digits). */
function sameWord(word: string, text: string, start: number, end: number): boolean {
  if (word.length !== end - start) return false;
  for (let i = 0; i < word.length; i++) if (word.charCodeAt(i) !== (text.charCodeAt(start + i) | 0x20)) return false;
  return true;
}
