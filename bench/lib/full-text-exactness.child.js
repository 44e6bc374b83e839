// Part "exact": searchplane's in-memory full-text index (FullTextIndex from dist/) built in this
// child on SciFact itself and on the generated corpus; for every query, the MaxScore top 10
// (`search`) must equal the exhaustive top 10 (`searchExhaustive`): same labels, same order, same
// scores. Also times both, in process (no HTTP), for reference.
import { FullTextIndex } from '../../dist/engine/embedded/full-text/full-text-index.js';
import { analyzeFields, analyzeQuery } from '../../dist/engine/query/analyzer.js';
import { textFields } from '../../dist/engine/query/text-tokens.js';
import { latencySummary } from './bench-stats.js';
import { childMain } from './child-runner.js';
import { fingerprint, loadCorpus } from './scifact-corpus.js';

/** Compares the two top-k lists of every query; returns `{ queries, mismatches, pruned, exhaustive }`. */
function check(name, documents, queries, progress) {
  const index = new FullTextIndex();
  documents.forEach((doc, i) => {
    // The fields as the engine reads them from a document's content (title omitted when empty).
    index.add(i + 1, analyzeFields(textFields(doc.title ? { title: doc.title, text: doc.text } : { text: doc.text })));
  });
  let mismatches = 0;
  const pruned = [];
  const exhaustive = [];
  for (const text of queries) {
    const query = analyzeQuery(text);
    let start = performance.now();
    const fast = index.search(query, 10);
    pruned.push(performance.now() - start);
    start = performance.now();
    const reference = index.searchExhaustive(query, 10);
    exhaustive.push(performance.now() - start);
    const same =
      fast.length === reference.length &&
      fast.every((hit, i) => hit.label === reference[i].label && hit.score === reference[i].score);
    if (!same) mismatches++;
  }
  const result = {
    documents: documents.length,
    queries: queries.length,
    mismatches,
    pruned: latencySummary(pruned),
    exhaustive: latencySummary(exhaustive),
  };
  progress(
    `${name}: ${mismatches} mismatches in ${queries.length} queries; in process p50 ` +
      `${result.pruned.p50.toFixed(2)} ms (MaxScore) vs ${result.exhaustive.p50.toFixed(2)} ms (exhaustive)`,
  );
  return result;
}

childMain('exact', async ({ datasetDir, docs, expect }, { progress }) => {
  const { scifact, documents, queries } = await loadCorpus(datasetDir, docs);
  if (fingerprint(documents) !== expect) throw new Error('corpus differs from the parent');
  return {
    scifact: check('SciFact', scifact, queries, progress),
    corpus: check(`${documents.length} documents`, documents, queries, progress),
  };
});
