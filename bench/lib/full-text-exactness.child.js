// Part "exact": searchplane's full-text index (FullTextIndex from dist/) built in this child on
// SciFact itself and on the corpus; for every query, the pruned top 10 (`search`) must equal the
// exhaustive top 10 (`searchExhaustive`): same labels, same order, same scores. Also times both,
// in process (no HTTP), for reference, and hands the exhaustive top lists of the corpus to the
// searchplane part, which checks the server's full-text answers against them.
import { FullTextIndex } from '../../dist/engine/embedded/full-text/full-text-index.js';
import { analyzeFields, analyzeQuery } from '../../dist/engine/query/analyzer.js';
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
  for (const doc of documents) {
    ids.push(doc.id);
    // The fields as the engine reads them from a document's content (title omitted when empty).
    index.add(
      ids.length,
      analyzeFields(textFields(doc.title ? { title: doc.title, text: doc.text } : { text: doc.text })),
    );
  }
  let mismatches = 0;
  const pruned = [];
  const exhaustive = [];
  const topLists = [];
  for (const text of queries) {
    const query = analyzeQuery(text);
    let start = performance.now();
    const fast = index.search(query, 10);
    pruned.push(performance.now() - start);
    start = performance.now();
    const longer = index.searchExhaustive(query, TOP_LIST);
    exhaustive.push(performance.now() - start);
    const reference = longer.slice(0, 10);
    const same =
      fast.length === reference.length &&
      fast.every((hit, i) => hit.label === reference[i].label && hit.score === reference[i].score);
    if (!same) mismatches++;
    if (keepTop) topLists.push(longer.map((hit) => [ids[hit.label - 1], hit.score]));
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
