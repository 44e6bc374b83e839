// The targets of issues #11, #7 and #8, judged from one run's results. Each check is
// `{ name, value, shown, target, pass }`; `pass` is undefined when the parts it needs did not run.

const absent = (value) => value === undefined || value === null || Number.isNaN(value);
const judged = (name, value, format, target, test) => ({
  name,
  value,
  shown: absent(value) ? '–' : format(value),
  target,
  pass: absent(value) ? undefined : test(value),
});
const times = (value) => `${value.toFixed(2)}×`;
const atMost = (name, value, max) => judged(name, value, times, `≤ ${max}×`, (v) => v <= max);
const atLeast = (name, value, min) => judged(name, value, times, `≥ ${min}×`, (v) => v >= min);
const none = (name, value) => judged(name, value, String, '0', (v) => v === 0);
const divide = (a, b) => (absent(a) || absent(b) ? undefined : a / b);

/** Issue #11: RSS at 100k documents no higher than before the work (859 MB). */
const RSS_LIMIT_MB = 859;
const RSS_TARGET_DOCS = 100_000;

/** Every target the run can judge, in the order the issues list them. */
export function judgeTargets({ searchplane: sp, peer, exact, load, postgres: pg }, docs) {
  return [
    atMost(
      'searchplane full-text p50 / peer full-text p50',
      divide(sp?.modes.fullText.p50, peer?.modes.fullText.p50),
      3,
    ),
    atLeast(
      'searchplane ingest acknowledged / peer',
      divide(sp?.ingest.ackDocsPerSecond, peer?.ingest.ackDocsPerSecond),
      0.7,
    ),
    atLeast(
      'searchplane fully indexed / peer',
      divide(sp?.ingest.indexedDocsPerSecond, peer?.ingest.indexedDocsPerSecond),
      0.3,
    ),
    judged(
      'vector recall@10 (ANN path vs exact cosine)',
      sp?.recall,
      (v) => v.toFixed(3),
      '≥ 0.95',
      (v) => v >= 0.95,
    ),
    judged(
      'vector search p50 (semanticWeight 1)',
      sp?.modes.vector.p50,
      (v) => `${v.toFixed(2)} ms`,
      '≤ 10 ms',
      (v) => v <= 10,
    ),
    judged(
      `searchplane RSS at ${RSS_TARGET_DOCS.toLocaleString('en-US')} documents`,
      docs === RSS_TARGET_DOCS && sp?.rss !== undefined ? sp.rss / 2 ** 20 : undefined,
      (v) => `${Math.round(v)} MB`,
      `≤ ${RSS_LIMIT_MB} MB`,
      (v) => v <= RSS_LIMIT_MB,
    ),
    none('full-text top 10 ≠ exhaustive, SciFact (queries)', exact?.scifact.mismatches),
    none('full-text top 10 ≠ exhaustive, corpus (queries)', exact?.corpus.mismatches),
    atMost('upsert p50 under 16 searchers / alone', load?.ratio, 5),
    atMost('PostgreSQL node B full-text p50 / embedded', divide(pg?.modes.fullText.p50, sp?.modes.fullText.p50), 1.5),
    atMost('PostgreSQL node B default p50 / embedded', divide(pg?.modes.default.p50, sp?.modes.default.p50), 1.5),
    judged(
      'PostgreSQL fresh node: first correct search',
      pg?.ready.firstSearchSeconds,
      (v) => `${v.toFixed(1)} s`,
      '≤ 60 s',
      (v) => v <= 60,
    ),
  ];
}
