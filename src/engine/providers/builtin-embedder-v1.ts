import { normalize } from '../embedded/vector-math.js';
import { mix32 } from '../query/hashing.js';
import { tokenize } from '../query/text-tokens.js';
import type { Embedder } from './provider-types.js';

/**
 * Feature weights, tuned so that a one-edit typo of a word scores ~0.3–0.5 cosine against it while
 * unrelated words stay near 0, and shared whole words still dominate multi-word texts.
 */
const WORD_WEIGHT = 0.7;
const BIGRAM_WEIGHT = 0.4;
const TRIGRAM_WEIGHT = 0.4;
const BOUNDARY = 0x23; // '#', marks word starts/ends so "car" and "scar" differ in their first gram

/**
 * The first builtin embedder (`builtin-hash-v1`), kept so that indexes filled with it keep
 * working: signed feature hashing of lowercase words and character 2- and 3-grams (with word
 * boundaries), sublinear term frequency, L2-normalized. No term weighting, so words common to
 * every document put a floor of ~0.3 under every cosine. New indexes use builtin-embedder.ts.
 */
export function createBuiltinEmbedderV1(dimensions = 256): Embedder {
  if (!Number.isInteger(dimensions) || dimensions < 8) throw new Error('builtin embedder needs dimensions >= 8');
  return {
    name: `builtin-hash-v1/${dimensions}`,
    dimensions,
    embed: async (texts) => texts.map((text) => embedText(text, dimensions)),
  };
}

/** Feature kinds, stored in the two low bits of each feature key. */
const WORD = 0;
const BIGRAM = 1;
const TRIGRAM = 2;
const WEIGHTS = [WORD_WEIGHT, BIGRAM_WEIGHT, TRIGRAM_WEIGHT];

/**
 * Term-frequency counting in an open-addressing hash table over typed arrays, reused across calls
 * (embedding is synchronous): every written document is embedded, and this allocates nothing per
 * call where a Map, or sorting the feature keys, would.
 */
const table = { keys: new Uint32Array(8192), counts: new Uint32Array(8192), slots: new Uint32Array(4096) };

function embedText(text: string, dimensions: number): Float32Array {
  // Each character yields at most one bigram and one trigram, each word one word feature (+ boundary grams).
  ensureCapacity(3 * text.length + 8);
  const { keys, counts, slots } = table;
  const mask = keys.length - 1;
  let used = 0;
  const count = (hash: number, kind: number) => {
    const key = ((hash & ~3) | kind) >>> 0;
    let slot = mix32(key) & mask;
    while (counts[slot] !== 0 && keys[slot] !== key) slot = (slot + 1) & mask;
    if (counts[slot] === 0) {
      keys[slot] = key;
      slots[used++] = slot;
    }
    counts[slot]++;
  };
  for (const token of tokenize(text)) {
    count(hashWord(token), WORD);
    // Grams over "#token#": start -1 is the leading boundary.
    for (let start = -1; start + 2 <= token.length + 1; start++) count(hashGram(token, start, 2), BIGRAM);
    for (let start = -1; start + 3 <= token.length + 1; start++) count(hashGram(token, start, 3), TRIGRAM);
  }
  const vector = new Float32Array(dimensions);
  for (let i = 0; i < used; i++) {
    const slot = slots[i];
    const key = keys[slot];
    const mixed = mix32(key);
    // One hash bit picks the sign so that collisions cancel out on average instead of piling up.
    const sign = mixed & 1 ? 1 : -1;
    vector[(mixed >>> 1) % dimensions] += sign * WEIGHTS[key & 3] * (1 + Math.log(counts[slot]));
    counts[slot] = 0; // leaves the table empty for the next call
  }
  return normalize(vector);
}

/** Grows the table so `features` distinct keys keep it at most half full. */
function ensureCapacity(features: number): void {
  if (table.slots.length >= features) return;
  let size = table.keys.length;
  while (size < 2 * features) size *= 2;
  table.keys = new Uint32Array(size);
  table.counts = new Uint32Array(size);
  table.slots = new Uint32Array(size / 2);
}

/** FNV-1a over the word's UTF-16 code units, seeded apart from the n-gram space. */
function hashWord(word: string): number {
  let hash = 0x811c9dc5 ^ 0x57;
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** FNV-1a of the `size`-gram at `start` of "#word#" (index -1 and word.length are the boundaries). */
function hashGram(word: string, start: number, size: number): number {
  let hash = 0x811c9dc5 ^ size; // seeded per size: "ab" and "ab#" must not share a hash family
  for (let i = start; i < start + size; i++) {
    const code = i < 0 || i >= word.length ? BOUNDARY : word.charCodeAt(i);
    hash = Math.imul(hash ^ code, 0x01000193);
  }
  return hash >>> 0;
}
