import { fnv1a, mix32 } from '../../query/hashing.js';

/**
 * Candidate spellings without a vocabulary scan: a SymSpell-style deletion index. Every word is
 * stored under the strings obtained by deleting up to `d` of its characters; two words within edit
 * distance `d` always share such a string, so a lookup probes the deletions of the query word only
 * (tens of hash probes) and the caller verifies the few candidates with a real edit distance.
 * Deletions are taken from the first {@link PREFIX} characters (SymSpell's prefix trick), which
 * bounds memory; keys are 32-bit hashes in an open-addressing multimap of typed arrays, and hash
 * collisions only add candidates that the verification drops.
 */

/** Words shorter than this get no corrections (too many near neighbours). */
export const MIN_WORD_LENGTH = 4;
const PREFIX = 8;
const EMPTY = -1;

/** Deletions indexed for a word: two from 6 characters (it may be two edits from an 8-letter query), else one. */
function indexedDistance(length: number): number {
  return length >= 6 ? 2 : 1;
}

export class SpellingIndex {
  private keys = new Uint32Array(1 << 12);
  private values = new Int32Array(1 << 12).fill(EMPTY);
  private used = 0;

  /** Adds `word` (a folded surface form) as `id`. */
  add(id: number, word: string): void {
    if (word.length < MIN_WORD_LENGTH) return;
    for (const variant of deletions(word, indexedDistance(word.length))) this.insert(fnv1a(variant), id);
  }

  /** Ids of words that may be within `maxDistance` edits of `word` (to be verified), without duplicates. */
  candidates(word: string, maxDistance: number): Set<number> {
    const found = new Set<number>();
    const mask = this.keys.length - 1;
    for (const variant of deletions(word, maxDistance)) {
      const key = fnv1a(variant);
      for (let slot = mix32(key) & mask; this.values[slot] !== EMPTY; slot = (slot + 1) & mask) {
        if (this.keys[slot] === key) found.add(this.values[slot]);
      }
    }
    return found;
  }

  private insert(key: number, id: number): void {
    if ((this.used + 1) * 2 > this.keys.length) this.grow();
    const mask = this.keys.length - 1;
    let slot = mix32(key) & mask;
    for (; this.values[slot] !== EMPTY; slot = (slot + 1) & mask) {
      if (this.keys[slot] === key && this.values[slot] === id) return;
    }
    this.keys[slot] = key;
    this.values[slot] = id;
    this.used++;
  }

  private grow(): void {
    const { keys, values } = this;
    this.keys = new Uint32Array(keys.length * 2);
    this.values = new Int32Array(values.length * 2).fill(EMPTY);
    this.used = 0;
    for (let i = 0; i < keys.length; i++) if (values[i] !== EMPTY) this.insert(keys[i], values[i]);
  }
}

/** The word's prefix with up to `distance` characters deleted (the prefix itself included). */
function deletions(word: string, distance: number): Set<string> {
  const prefix = word.length > PREFIX ? word.slice(0, PREFIX) : word;
  const out = new Set<string>([prefix]);
  let frontier = [prefix];
  for (let d = 0; d < distance; d++) {
    const next: string[] = [];
    for (const text of frontier) {
      for (let i = 0; i < text.length; i++) {
        const variant = text.slice(0, i) + text.slice(i + 1);
        if (!out.has(variant)) {
          out.add(variant);
          next.push(variant);
        }
      }
    }
    frontier = next;
  }
  return out;
}
