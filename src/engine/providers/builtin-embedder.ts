import { normalize } from '../embedded/vector-math.js';
import { type AnalyzedDocument, analyzeFields, type Term } from '../query/analyzer.js';
import { fnv1a, mix32 } from '../query/hashing.js';
import type { Embedder, TermStatistics } from './provider-types.js';

/**
 * Weight of a whole (stemmed) term next to its character trigrams. Trigrams carry most of the
 * vector: they are what the full-text side does not see (partial words, misspellings, morphology
 * beyond the stemmer), so the two sides of a hybrid search disagree usefully. A weight near the
 * trigrams' made the vector side a weaker copy of BM25 that pulled hybrid results down at high
 * semantic weights.
 */
const TERM_WEIGHT = 0.35;
const DEFAULT_DIMENSIONS = 512;

/**
 * The builtin embedder (`builtin-hash-v2`): offline, deterministic and fast. Each stemmed term of
 * a text contributes a term feature and its character trigrams (with word boundaries), signed-
 * hashed into `dimensions`. Features are weighted by the namespace's own statistics: a term by its
 * BM25 inverse document frequency, a trigram by the inverse of how many of the namespace's terms
 * (per document) contain it, both times the sublinear term frequency. Words that every document
 * shares therefore weigh almost nothing, which removes most of the cosine floor between unrelated
 * documents that the unweighted v1 has. Lexical, not semantic: it captures
 * shared and similarly spelled words, not meaning.
 */
export function createBuiltinEmbedder(dimensions = DEFAULT_DIMENSIONS): Embedder {
  if (!Number.isInteger(dimensions) || dimensions < 8) throw new Error('builtin embedder needs dimensions >= 8');
  const slots = new TermSlots(dimensions);
  const weights = new TermWeights();
  const embedTerms = (docs: readonly AnalyzedDocument[], statistics?: TermStatistics) => {
    weights.startCall(statistics);
    try {
      return docs.map((doc) => vectorOf(doc, dimensions, slots, weights));
    } finally {
      weights.startCall(undefined); // holds no index's statistics between calls
    }
  };
  return {
    name: `builtin-hash-v2/${dimensions}`,
    dimensions,
    // One field: plain term counts, as the analyzer gives a single-field document.
    embed: async (texts, statistics) =>
      embedTerms(
        texts.map((text) => analyzeFields([text])),
        statistics,
      ),
    embedTerms,
  };
}

function vectorOf(doc: AnalyzedDocument, dimensions: number, slots: TermSlots, weights: TermWeights): Float32Array {
  const vector = new Float32Array(dimensions);
  const { terms, frequencies } = doc;
  for (let t = 0; t < terms.length; t++) {
    const term = terms[t];
    const tf = 1 + Math.log(frequencies[t]);
    const features = slots.of(term);
    const at = weights.of(term, features.length);
    const weight = weights.values;
    add(vector, features[0], TERM_WEIGHT * tf * weight[at]);
    for (let i = 1; i < features.length; i++) add(vector, features[i], tf * weight[at + i]);
  }
  return normalize(vector);
}

/** Numbers embedding calls and slot tables across the process (0 means none in a term's memo). */
let serial = 0;

/**
 * The inverse frequencies of each term (first) and of its trigrams under one call's statistics,
 * computed once per call: the statistics do not change during a call, and the documents of a batch
 * share most of their terms. Values live in one array reused from call to call; a term remembers
 * only the call and its offset, so nothing per term outlives the call.
 */
class TermWeights {
  values = new Float64Array(4096);
  private used = 0;
  private call = 0;
  private statistics: TermStatistics | undefined;

  startCall(statistics: TermStatistics | undefined): void {
    this.call = ++serial;
    this.used = 0;
    this.statistics = statistics;
  }

  /** Where the weights of `term` (`count` features) are in {@link values}. */
  of(term: Term, count: number): number {
    if (term.weightsCall === this.call) return term.weightsAt;
    if (this.used + count > this.values.length) {
      const values = new Float64Array(Math.max(this.values.length * 2, this.used + count));
      values.set(this.values);
      this.values = values;
    }
    const at = this.used;
    this.used += count;
    const statistics = this.statistics;
    const weights = this.values;
    if (!statistics) {
      weights.fill(1, at, at + count);
    } else {
      const documents = statistics.documentCount;
      const profile = statistics.termProfile?.(term);
      const df = profile ? profile.documentFrequency : statistics.documentFrequency(term.text);
      weights[at] = Math.log(1 + (documents - df + 0.5) / (df + 0.5));
      const trigrams = term.trigrams;
      for (let i = 1; i < count; i++) {
        const occurrences = profile ? profile.trigramFrequencies[i - 1] : statistics.trigramFrequency(trigrams[i - 1]);
        weights[at + i] = Math.log(1 + documents / (occurrences + 1));
      }
    }
    term.weightsCall = this.call;
    term.weightsAt = at;
    return at;
  }
}

/** Adds `weight` at a signed slot (index × 2 + sign bit): collisions cancel out on average. */
function add(vector: Float32Array, slot: number, weight: number): void {
  vector[slot >>> 1] += slot & 1 ? weight : -weight;
}

/** Signed slots of each term's features (the term, then its trigrams), kept on the term (hashing dominates otherwise). */
class TermSlots {
  private readonly id = ++serial;

  constructor(private readonly dimensions: number) {}

  of(term: Term): Int32Array {
    if (term.slotsOwner === this.id) return term.slots!;
    const trigrams = term.trigrams;
    const slots = new Int32Array(1 + trigrams.length);
    slots[0] = this.slot(fnv1a(term.text, 0x57));
    for (let i = 0; i < trigrams.length; i++) slots[i + 1] = this.slot(fnv1a(trigrams[i], 0x33));
    term.slots = slots;
    term.slotsOwner = this.id;
    return slots;
  }

  private slot(key: number): number {
    const mixed = mix32(key);
    return (((mixed >>> 1) % this.dimensions) << 1) | (mixed & 1);
  }
}
