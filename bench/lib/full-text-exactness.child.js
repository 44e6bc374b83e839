// Part "exact": searchplane's full-text index (FullTextIndex from dist/) built in this child on
// SciFact itself and on the corpus; for every query, the pruned top 50 (`search`, the pool the
// server's expansion orders again) must equal the exhaustive top 50 (`searchExhaustive`): same
// labels, same order, same scores. Also times both, in process (no HTTP), for reference, and hands
// the searchplane part, which checks the server's full-text answers against them, the corpus's
// exhaustive top lists as the server ranks them: the pool scored by the query expanded from its
// best matches (query/feedback.ts).
import { FullTextIndex } from '../../dist/engine/embedded/full-text/full-text-index.js';
import { analyzeFields, analyzeQuery } from '../../dist/engine/query/analyzer.js';
import { expandQuery, FEEDBACK_DOCUMENTS, FEEDBACK_POOL } from '../../dist/engine/query/feedback.js';
import { textFields } from '../../dist/engine/query/text-tokens.js';
import { latencySummary } from './bench-stats.js';
import { childMain } from './child-runner.js';
import { fingerprint, loadCorpus } from './scifact-corpus.js';

/** Exhaustive hits kept per query for the server's check: ties at the 10th place may reach past it. */
const TOP_LIST = 30;

/**
 * Compares the two top-k lists of every query; returns `{ queries, mismatches, pruned, exhaustive }`,
 * and with `keepTop` also `topLists`: per query, the exhaustive top {@link TOP_LIST} as `[id, score]`.
 */
function check(name, documents, queries, progress, keepTop = false) {
  const index = new FullTextIndex();
  const ids = [];
  // The fields as the engine reads them from a document's content (title omitted when empty).
  const fieldsOf = (doc) => textFields(doc.title ? { title: doc.title, text: doc.text } : { text: doc.text });
  // Kept for the feedback's re-analysis (`documents` may be a one-pass iterator).
  const kept = [];
  for (const doc of documents) {
    ids.push(doc.id);
    kept.push(doc);
    index.add(ids.length, analyzeFields(fieldsOf(doc)));
  }
  // The server's full-text ranking of a pool: its best matches re-analyzed from their text expand
  // the query, which scores the pool again (best first, ties by label).
  const expandedRanking = (query, pool) => {
    if (pool.length <= FEEDBACK_DOCUMENTS) return pool;
    const feedback = pool
      .slice(0, FEEDBACK_DOCUMENTS)
      .map((hit) => ({ score: hit.score, analysis: analyzeFields(fieldsOf(kept[hit.label - 1])) }));
    const scores = index.scores(
      expandQuery(query, feedback),
      pool.map((hit) => hit.label),
    );
    return pool
      .map((hit) => ({ label: hit.label, score: scores.get(hit.label) ?? 0 }))
      .sort((a, b) => b.score - a.score || a.label - b.label);
  };
  let mismatches = 0;
  const pruned = [];
  const exhaustive = [];
  const topLists = [];
  for (const text of queries) {
    const query = analyzeQuery(text);
    let start = performance.now();
    const fast = index.search(query, FEEDBACK_POOL);
    pruned.push(performance.now() - start);
    start = performance.now();
    const reference = index.searchExhaustive(query, FEEDBACK_POOL);
    exhaustive.push(performance.now() - start);
    const same =
      fast.length === reference.length &&
      fast.every((hit, i) => hit.label === reference[i].label && hit.score === reference[i].score);
    if (!same) mismatches++;
    if (keepTop) {
      const ranked = expandedRanking(query, reference).slice(0, TOP_LIST);
      topLists.push(ranked.map((hit) => [ids[hit.label - 1], hit.score]));
    }
  }
  const result = {
    documents: ids.length,
    queries: queries.length,
    mismatches,
    pruned: latencySummary(pruned),
    exhaustive: latencySummary(exhaustive),
    ...(keepTop ? { topLists } : {}),
  };
  progress(
    `${name}: ${mismatches} mismatches in ${queries.length} queries; in process p50 ` +
      `${result.pruned.p50.toFixed(2)} ms (pruned) vs ${result.exhaustive.p50.toFixed(2)} ms (exhaustive)`,
  );
  return result;
}

childMain('exact', async ({ datasetDir, docs, kind, expect }, { progress }) => {
  const { scifact, documents, queries } = await loadCorpus(datasetDir, docs, kind);
  if (fingerprint(documents()) !== expect) throw new Error('corpus differs from the parent');
  return {
    scifact: check('SciFact', scifact, queries, progress),
    corpus: check(`${docs} documents`, documents(), queries, progress, true),
  };
});
