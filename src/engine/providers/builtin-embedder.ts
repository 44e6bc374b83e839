import { normalize } from '../embedded/vector-math.js';
import { stemToken, termTrigrams } from '../query/analyzer.js';
import { fnv1a, mix32 } from '../query/hashing.js';
import { tokenize } from '../query/text-tokens.js';
import type { Embedder, TermStatistics } from './provider-types.js';

/**
 * Weight of a whole (stemmed) term next to its character trigrams. Trigrams carry most of the
 * vector: they are what the full-text side does not see (partial words, misspellings, morphology
 * beyond the stemmer), so the two sides of a hybrid search disagree usefully. On SciFact (exact
 * search, 512 dimensions) term weights 0.2–0.4 fused equally well; 1.0 made the vector side a
 * weaker copy of BM25 that pulled hybrid results down at high semantic weights.
 */
const TERM_WEIGHT = 0.35;
const DEFAULT_DIMENSIONS = 512;
const MAX_CACHED_TERMS = 200_000;

/**
 * The builtin embedder (`builtin-hash-v2`): offline, deterministic and fast. Each stemmed term of
 * a text contributes a term feature and its character trigrams (with word boundaries), signed-
 * hashed into `dimensions`. Features are weighted by the namespace's own statistics: a term by its
 * BM25 inverse document frequency, a trigram by the inverse of how many of the namespace's terms
 * (per document) contain it, both times the sublinear term frequency. Words that every document
 * shares therefore weigh almost nothing, which removes most of the cosine floor between unrelated
 * documents (0.32 with the unweighted v1, 0.10 here on SciFact). Lexical, not semantic: it captures
 * shared and similarly spelled words, not meaning.
 */
export function createBuiltinEmbedder(dimensions = DEFAULT_DIMENSIONS): Embedder {
  if (!Number.isInteger(dimensions) || dimensions < 8) throw new Error('builtin embedder needs dimensions >= 8');
  const slots = new TermSlots(dimensions);
  const embedTerms = (terms: readonly ReadonlyMap<string, number>[], statistics?: TermStatistics) =>
    terms.map((frequencies) => vectorOf(frequencies, statistics, dimensions, slots));
  return {
    name: `builtin-hash-v2/${dimensions}`,
    dimensions,
    embed: async (texts, statistics) => embedTerms(texts.map(termFrequencies), statistics),
    embedTerms,
  };
}

/** Stemmed term → count, as the analyzer folds and stems words. */
function termFrequencies(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of tokenize(text)) {
    const term = stemToken(token);
    counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  return counts;
}

function vectorOf(
  frequencies: ReadonlyMap<string, number>,
  statistics: TermStatistics | undefined,
  dimensions: number,
  slots: TermSlots,
): Float32Array {
  const vector = new Float32Array(dimensions);
  const documents = statistics?.documentCount ?? 0;
  for (const [term, count] of frequencies) {
    const tf = 1 + Math.log(count);
    const features = slots.of(term);
    const profile = statistics?.termProfile?.(term);
    const df = profile ? profile.documentFrequency : statistics ? statistics.documentFrequency(term) : 0;
    const termIdf = statistics ? Math.log(1 + (documents - df + 0.5) / (df + 0.5)) : 1;
    add(vector, features.term, TERM_WEIGHT * tf * termIdf);
    for (let i = 0; i < features.trigrams.length; i++) {
      const occurrences = profile
        ? profile.trigramFrequencies[i]
        : statistics
          ? statistics.trigramFrequency(features.trigramTexts[i])
          : 0;
      const trigramIdf = statistics ? Math.log(1 + documents / (occurrences + 1)) : 1;
      add(vector, features.trigrams[i], tf * trigramIdf);
    }
  }
  return normalize(vector);
}

/** Adds `weight` at a signed slot (index × 2 + sign bit): collisions cancel out on average. */
function add(vector: Float32Array, slot: number, weight: number): void {
  vector[slot >>> 1] += slot & 1 ? weight : -weight;
}

interface Features {
  term: number;
  trigrams: Int32Array;
  trigramTexts: readonly string[];
}

/** Signed slots of each term's features, cached (hashing dominates otherwise). */
class TermSlots {
  private readonly cache = new Map<string, Features>();

  constructor(private readonly dimensions: number) {}

  of(term: string): Features {
    let features = this.cache.get(term);
    if (!features) {
      const trigramTexts = termTrigrams(term);
      features = {
        term: this.slot(fnv1a(term, 0x57)),
        trigrams: Int32Array.from(trigramTexts, (gram) => this.slot(fnv1a(gram, 0x33))),
        trigramTexts,
      };
      if (this.cache.size >= MAX_CACHED_TERMS) this.cache.clear();
      this.cache.set(term, features);
    }
    return features;
  }

  private slot(key: number): number {
    const mixed = mix32(key);
    return (((mixed >>> 1) % this.dimensions) << 1) | (mixed & 1);
  }
}
