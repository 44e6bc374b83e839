/*
 * The engine's non-cryptographic hashes: stable across processes and versions (the builtin
 * embedder's features are placed by them, in vectors stored on disk), and fast on the write path.
 */

/** FNV-1a over UTF-16 code units; `seed` separates hash families (e.g. words from trigrams). */
export function fnv1a(text: string, seed = 0): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * FNV-1a (as {@link fnv1a} without a seed) of the code units `text[start .. end]`, each folded to
 * lowercase when `fold` (ASCII: a letter's bit 0x20 set; digits have it already): a word hashed
 * where it stands in a text, without a string of its own. A signed 32-bit value.
 */
export function fnv1aRange(text: string, start: number, end: number, fold: boolean): number {
  const mask = fold ? 0x20 : 0;
  let h = 0x811c9dc5 | 0;
  for (let i = start; i < end; i++) h = Math.imul(h ^ (text.charCodeAt(i) | mask), 0x01000193);
  return h;
}

/** The murmur3 finalizer: spreads FNV's weak low bits before a modulus or a table mask. */
export function mix32(value: number): number {
  let h = value;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
