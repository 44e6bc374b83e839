/**
 * Relevance metrics, defined as pytrec_eval (trec_eval 9) and BEIR define them, so the numbers
 * compare with published ones:
 * - the run is ordered by score, best first, ties broken by document id in descending byte
 *   order (trec_eval's `comp_sim_docno`), whatever order the hits came in;
 * - nDCG@k (`ndcg_cut.k`): linear gain = the qrels grade (not 2^grade − 1), log2(rank + 1)
 *   discount, only positive grades count; the ideal ranking is every judged document with a
 *   positive grade, highest grade first, cut at k; 0 when no judged document is relevant;
 * - Recall@k (`recall_k`): relevant documents (grade ≥ 1) in the top k over all relevant
 *   documents in the qrels (also those missing from the corpus); 0 when there are none;
 * - MRR@k (BEIR's `mrr`): 1 / rank of the first relevant document (grade > 0) in the top k, else 0.
 * Averages are over every evaluated query; a query whose search returned nothing counts as 0.
 */

/** One retrieved document and the score it was ranked by. */
export interface ScoredHit {
  id: string;
  score: number;
}

/** Relevance grades of one query's judged documents: document id → grade (0 = judged irrelevant). */
export type Judgments = ReadonlyMap<string, number>;

/** Per-query metrics at the cutoffs the `eval` command reports. */
export interface QueryMetrics {
  ndcgAt10: number;
  recallAt100: number;
  mrrAt10: number;
}

/** The run in trec_eval order: score descending, equal scores by document id descending. */
export function trecOrder(hits: readonly ScoredHit[]): string[] {
  return [...hits]
    .sort((a, b) => b.score - a.score || Buffer.compare(Buffer.from(b.id), Buffer.from(a.id)))
    .map((hit) => hit.id);
}

/** nDCG at `k` of a ranking (document ids, best first) with linear gain. */
export function ndcgAt(ranking: readonly string[], judgments: Judgments, k: number): number {
  let dcg = 0;
  ranking.slice(0, k).forEach((id, position) => {
    const gain = judgments.get(id) ?? 0;
    if (gain > 0) dcg += gain / Math.log2(position + 2);
  });
  const ideal = [...judgments.values()]
    .filter((grade) => grade > 0)
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, gain, position) => sum + gain / Math.log2(position + 2), 0);
  return ideal > 0 ? dcg / ideal : 0;
}

/** Share of the relevant documents (grade ≥ 1) found in the top `k`. */
export function recallAt(ranking: readonly string[], judgments: Judgments, k: number): number {
  const relevant = [...judgments.values()].filter((grade) => grade >= 1).length;
  if (relevant === 0) return 0;
  const found = ranking.slice(0, k).filter((id) => (judgments.get(id) ?? 0) >= 1).length;
  return found / relevant;
}

/** 1 / rank of the first relevant document (grade > 0) within the top `k`, 0 if none is there. */
export function reciprocalRankAt(ranking: readonly string[], judgments: Judgments, k: number): number {
  const position = ranking.slice(0, k).findIndex((id) => (judgments.get(id) ?? 0) > 0);
  return position === -1 ? 0 : 1 / (position + 1);
}

/** nDCG@10, Recall@100 and MRR@10 of one query's hits (in any order; see {@link trecOrder}). */
export function queryMetrics(hits: readonly ScoredHit[], judgments: Judgments): QueryMetrics {
  const ranking = trecOrder(hits);
  return {
    ndcgAt10: ndcgAt(ranking, judgments, 10),
    recallAt100: recallAt(ranking, judgments, 100),
    mrrAt10: reciprocalRankAt(ranking, judgments, 10),
  };
}

/** The mean of each metric over queries (all 0 for no queries). */
export function meanMetrics(perQuery: readonly QueryMetrics[]): QueryMetrics {
  return {
    ndcgAt10: mean(perQuery.map((m) => m.ndcgAt10)),
    recallAt100: mean(perQuery.map((m) => m.recallAt100)),
    mrrAt10: mean(perQuery.map((m) => m.mrrAt10)),
  };
}

/** Arithmetic mean; 0 for an empty list. */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/**
 * Nearest-rank percentile (`p` in 0..100]: the smallest value that at least p % of the values
 * do not exceed; 0 for an empty list. Used for latencies, where an observed value is wanted
 * rather than an interpolation between two.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}
