import type { Reranker, TermStatistics } from '../providers/provider-types.js';

/** A document version (its label) with a score, in the 0..1 range once fused. */
export interface Candidate {
  label: number;
  score: number;
}

/** The two first-stage signals of a set of candidates, as any backend can produce them. */
export interface CandidateSignals {
  /** Cosine similarity to the query vector, by label (absent: not scored, counts as -1). */
  semantic: Map<number, number>;
  /** BM25 by label (absent: no query term matched). */
  text: Map<number, number>;
  /** The best BM25 of the namespace for this query (the text side's normalizer). */
  bestText: number;
}

/** Documents re-scored when reranking: at least this many, so the reranker can promote from below topK. */
export const RERANK_WINDOW = 50;

/**
 * Fuses both signals into one score per candidate, best first:
 * - semantic = (1 + cosine) / 2, Upstash Vector's COSINE score: absolute, so comparable across
 *   queries, and a side whose similarities are uninformative (all alike) moves every candidate by
 *   about the same amount and cannot reorder strong keyword matches;
 * - fulltext = BM25 / best BM25 in the namespace for this query (relative: BM25 has no fixed scale,
 *   so the best keyword match gets 1 and a document without any query term gets 0);
 * - score = w·semantic + (1−w)·fulltext with w = semanticWeight, so 0..1.
 * Normalizing the semantic side per query instead (min-max above the namespace's mean similarity,
 * z-scores of both lists, or reciprocal-rank fusion) stretches small, noisy cosine differences to
 * the full range, which is exactly how a weak vector side pushes good keyword hits down: on SciFact
 * all of them fell below full text alone at higher weights.
 */
export function fuse(labels: Iterable<number>, signals: CandidateSignals, weight: number): Candidate[] {
  const ranked: Candidate[] = [];
  for (const label of labels) {
    const semantic = clamp01((1 + (signals.semantic.get(label) ?? -1)) / 2);
    const fulltext = signals.bestText > 0 ? clamp01((signals.text.get(label) ?? 0) / signals.bestText) : 0;
    ranked.push({ label, score: weight * semantic + (1 - weight) * fulltext });
  }
  return ranked.sort(byScore);
}

/** How many of each side's best the agreement of {@link agreedWeight} compares. */
export const AGREEMENT_DEPTH = 10;

/**
 * The weight the semantic side gets for one query: the requested weight w, its odds w / (1 − w)
 * scaled by how far the two sides agree on their best documents (the share of the full-text top
 * 10 that is in the vector top 10). Agreement is the evidence that the vector side ranks the
 * documents the query is about: where the two agree, its finer similarity reorders them; where it
 * ranks other documents first, the words of the query prevail. A fixed weight let the vector side
 * pull the ranking below plain full text on half of six test collections; scaled by agreement it
 * kept every one at or above it (docs/performance.md, "Relevance"). Without a full-text match the
 * vector side is all there is, and w = 0 and w = 1 are taken as asked.
 */
export function agreedWeight(weight: number, textBest: readonly number[], semantic: Map<number, number>): number {
  if (weight <= 0 || weight >= 1 || textBest.length === 0) return weight;
  const depth = Math.min(AGREEMENT_DEPTH, textBest.length, semantic.size);
  const vectorBest = new Set(
    [...semantic]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, depth)
      .map(([label]) => label),
  );
  const agreement = textBest.slice(0, depth).filter((label) => vectorBest.has(label)).length / Math.max(1, depth);
  const odds = (weight / (1 - weight)) * agreement;
  return odds / (1 + odds);
}

/**
 * Re-scores a window of candidates with the reranker; its score (0..1) replaces the first-stage
 * score. `textOf` gives each candidate's flattened text.
 */
export async function rerankCandidates(
  reranker: Reranker,
  query: string,
  window: Candidate[],
  textOf: (label: number) => { id: string; text: string },
  statistics?: TermStatistics,
): Promise<Candidate[]> {
  const docs = window.map((candidate) => ({ ...textOf(candidate.label), score: candidate.score }));
  const scores = await reranker.rerank(query, docs, statistics);
  return window.map((candidate, i) => ({ ...candidate, score: clamp01(scores[i] ?? 0) })).sort(byScore);
}

/** Best first; ties by label (older version first) so results are deterministic. */
export function byScore(a: Candidate, b: Candidate): number {
  return b.score - a.score || a.label - b.label;
}

export function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}
