import type { Scored } from '../vector-math.js';
import { TopK } from '../vector-math.js';
import type { PostingList } from './posting-list.js';

/** BM25 saturation and length normalization (Lucene's defaults). */
export const K1 = 1.2;
export const B = 0.75;

/** A query term as scored: its text (for the canonical order), posting list and IDF. */
export interface ScoredTerm {
  term: string;
  list: PostingList;
  idf: number;
}

/** What scoring reads of the documents, by ordinal. */
export interface DocumentView {
  /** BM25's length normalization `k1·(1 − b + b·length/average)` of a weighted length. */
  norm(length: number): number;
  lengths: Uint32Array;
  live: Uint8Array;
  labels: Float64Array;
  /** Only documents whose label is in it, when given. */
  filter?: ReadonlySet<number>;
}

/**
 * MaxScore document-at-a-time retrieval of the `k` best ordinals. Terms are ordered by their best
 * possible contribution; the lowest ones whose bounds add up below the current k-th score are
 * non-essential: candidates come from the essential lists only, and non-essential lists are
 * probed (galloping) for a candidate only while its score plus their remaining bound can still
 * reach the threshold. Bounds are strict, so ties with the k-th score are always scored, and
 * every score is summed in the canonical order (the exhaustive scoring's), so the top k is exact.
 */
export function maxScoreTopK(terms: ScoredTerm[], k: number, documents: DocumentView): Scored[] {
  const { norm, lengths, live, labels, filter } = documents;
  const sorted = terms
    .map((term) => ({
      ...term,
      // A hair above the true bound, so rounding can never prune a document that reaches the threshold.
      bound: ((term.idf * term.list.maxTf * (K1 + 1)) / (term.list.maxTf + norm(term.list.minLength))) * (1 + 1e-9),
    }))
    .sort((a, b) => a.bound - b.bound);
  const n = sorted.length;
  // Contributions are added up in the canonical order (by term text), so scores equal the
  // exhaustive ones to the last bit and ties resolve by label exactly as they would there.
  const canonical = sorted.map((_, i) => i).sort((a, b) => (sorted[a].term < sorted[b].term ? -1 : 1));
  const contributions = new Float64Array(n);
  const prefix = new Float64Array(n);
  for (let i = 0, sum = 0; i < n; i++) prefix[i] = sum += sorted[i].bound;
  const positions = new Int32Array(n);
  const top = new TopK(k);
  let threshold = Number.NEGATIVE_INFINITY;
  let essential = 0;
  for (;;) {
    let candidate = 0xffffffff;
    for (let i = essential; i < n; i++) {
      const list = sorted[i].list;
      if (positions[i] < list.length && list.docs[positions[i]] < candidate) candidate = list.docs[positions[i]];
    }
    if (candidate === 0xffffffff) break;
    const lengthNorm = norm(lengths[candidate]);
    contributions.fill(0);
    let score = 0;
    for (let i = essential; i < n; i++) {
      const { list, idf } = sorted[i];
      const p = positions[i];
      if (p < list.length && list.docs[p] === candidate) {
        const tf = list.tfs[p];
        contributions[i] = (idf * tf * (K1 + 1)) / (tf + lengthNorm);
        score += contributions[i];
        positions[i] = p + 1;
      }
    }
    if (!live[candidate] || (filter && !filter.has(labels[candidate]))) continue;
    let pruned = false;
    for (let i = essential - 1; i >= 0; i--) {
      if (score + prefix[i] < threshold) {
        pruned = true;
        break;
      }
      const { list, idf } = sorted[i];
      const p = list.seek(positions[i], candidate);
      positions[i] = p;
      if (p < list.length && list.docs[p] === candidate) {
        const tf = list.tfs[p];
        contributions[i] = (idf * tf * (K1 + 1)) / (tf + lengthNorm);
        score += contributions[i];
      }
    }
    if (pruned) continue;
    let exact = 0;
    for (const i of canonical) exact += contributions[i];
    top.push(labels[candidate], exact);
    if (top.full) {
      threshold = top.minScore;
      while (essential < n && prefix[essential] < threshold) essential++;
    }
  }
  return top.sorted();
}
