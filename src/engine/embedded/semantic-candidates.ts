import type { DocumentStore } from './document-store.js';
import { TIE_MARGIN } from './namespace-vectors.js';
import type { SegmentedVectors } from './segmented-vectors.js';
import { codeDot } from './vector-codes.js';
import { bestFirst, type Scored, TopK } from './vector-math.js';

/**
 * Below this many filter matches, exact scoring of the matches is cheaper (and always complete)
 * than any graph walk.
 */
export const EXACT_FILTER_LIMIT = 2000;
/** Post-filtering an unfiltered graph search pays off down to this share of matching documents. */
const OVERSAMPLE_MIN_SELECTIVITY = 0.02;

/**
 * The `k` most similar documents of a namespace to `query` (score = cosine), best first:
 * HNSW neighbours merged with an exact scan of the pending (not yet indexed) vectors. With a
 * filter's matching labels (selectivity s = matches / documents):
 * - few matches: exact scoring of all of them;
 * - s ≥ 2%: an unfiltered graph search for k/s·1.5 neighbours, post-filtered (the labels
 *   would otherwise travel to the worker and be hashed there on every search);
 * - otherwise, or when post-filtering came back short: graph search with the label predicate
 *   (the labels travel to the worker, and the graph tests each visited node against them);
 * - and exact scoring as the last resort, so up to `k` matches are returned whenever they exist.
 * `effort` is the share of efSearch an unfiltered graph walk uses (see searchEf).
 */
export async function semanticCandidates(
  store: DocumentStore,
  vectors: Pick<SegmentedVectors, 'nearest' | 'nearestPending'>,
  query: Float32Array,
  k: number,
  matches: Set<number> | undefined,
  documentCount: number,
  turn: Turn = runNow,
  effort = 1,
): Promise<Scored[]> {
  const candidates = await approximateCandidates(store, vectors, query, k, matches, documentCount, turn, effort);
  return best(candidates, k);
}

/** Runs a CPU-heavy section when it is this search's turn (see cpu-turns.ts). */
export type Turn = <T>(section: () => T) => Promise<T>;
const runNow: Turn = async (section) => section();

/**
 * The best `k` candidates. Every way in scores a candidate as codeDot does from the code every
 * node stores (the graph, the pending vectors and SQLite alike), so scores, and which candidates
 * make the cut, are exact and the same on every node holding the same vectors.
 */
function best(candidates: Scored[], k: number): Scored[] {
  const top = new TopK(k);
  for (const { label, score } of candidates) top.push(label, score);
  return top.sorted();
}

async function approximateCandidates(
  store: DocumentStore,
  vectors: Pick<SegmentedVectors, 'nearest' | 'nearestPending'>,
  query: Float32Array,
  k: number,
  matches: Set<number> | undefined,
  documentCount: number,
  turn: Turn,
  effort: number,
): Promise<Scored[]> {
  // Each graph search runs in the worker while the pending vectors are scanned here.
  if (!matches) {
    const graph = vectors.nearest(query, k, undefined, k, effort);
    const pending = await turn(() => vectors.nearestPending(query, k));
    return merge(await graph, pending, k);
  }
  if (matches.size <= EXACT_FILTER_LIMIT) return turn(() => exact(store, query, [...matches], k));
  const accept = (label: number) => matches.has(label);
  const wanted = Math.min(k, matches.size);
  const selectivity = matches.size / Math.max(documentCount, matches.size);
  const oversample = selectivity >= OVERSAMPLE_MIN_SELECTIVITY;
  const first = oversample
    ? vectors.nearest(query, Math.ceil((1.5 * k) / selectivity), undefined, k)
    : vectors.nearest(query, k, matches);
  const pending = await turn(() => vectors.nearestPending(query, k, accept));
  if (oversample) {
    const found = merge(
      (await first).filter((hit) => accept(hit.label)),
      pending,
      k,
    );
    if (found.length >= wanted) return found;
  }
  const found = merge(await (oversample ? vectors.nearest(query, k, matches) : first), pending, k);
  return found.length >= wanted ? found : turn(() => exact(store, query, [...matches], k));
}

/**
 * The exact cosine of `labels` with the query, by label: from the codes the vector side holds in
 * memory, and from SQLite for the rest (labels that no longer exist are skipped).
 */
export async function vectorScores(
  store: DocumentStore,
  vectors: Pick<SegmentedVectors, 'scores'>,
  query: Float32Array,
  labels: number[],
  turn: Turn = runNow,
): Promise<Map<number, number>> {
  const scores = labels.length > 0 ? await vectors.scores(query, labels) : new Map<number, number>();
  const missing = labels.filter((label) => !scores.has(label));
  if (missing.length > 0) {
    await turn(() => {
      for (const [label, score] of similarities(store, query, missing)) scores.set(label, score);
    });
  }
  return scores;
}

/** Exact cosine of the stored vectors of `labels` (labels that no longer exist are skipped). */
function similarities(store: DocumentStore, query: Float32Array, labels: number[]): Map<number, number> {
  const result = new Map<number, number>();
  for (const [label, code] of store.vectorCodes(labels)) result.set(label, codeDot(query, code));
  return result;
}

function exact(store: DocumentStore, query: Float32Array, labels: number[], k: number): Scored[] {
  const top = new TopK(k);
  for (const [label, score] of similarities(store, query, labels)) top.push(label, score);
  return top.sorted();
}

/**
 * The best of both lists, each label once (a vector the graph has just taken is still pending
 * too), with a margin beyond `k` so that ties at the k-th place resolve by label on every node.
 */
function merge(a: Scored[], b: Scored[], k: number): Scored[] {
  const seen = new Set<number>();
  const merged: Scored[] = [];
  for (const hit of [...a, ...b].sort(bestFirst)) {
    if (seen.has(hit.label)) continue;
    seen.add(hit.label);
    merged.push(hit);
  }
  return merged.slice(0, k + TIE_MARGIN);
}
