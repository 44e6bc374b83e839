// The performance targets, judged from one run's results. Each check is
// `{ name, value, shown, target, pass }`; `pass` is undefined when the parts it needs did not run,
// null for a figure that is only reported.

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

/** Full-text latency may grow to this multiple of the peer's from a million documents on. */
const LARGE_CORPUS = 1_000_000;

/** The checks of one realistic-corpus run: all of them for the first size, latency and memory for the others. */
function runChecks(run, first) {
  const { searchplane: sp, peer, exact } = run;
  const at = `${run.docs.toLocaleString('en-US')}`;
  const peerP50 = peer?.modes.fullText.concurrent?.p50;
  const checks = [
    atMost(
      `${at}: full-text p50, concurrent / LanceDB`,
      divide(sp?.modes.fullText.concurrent?.p50, peerP50),
      run.docs >= LARGE_CORPUS ? 1.5 : 1,
    ),
    atMost(`${at}: RSS / text`, divide(sp?.rss, run.textBytes), 3),
    none(`${at}: full-text top 10 over HTTP ≠ exhaustive (queries)`, sp?.exactness?.mismatches),
    none(`${at}: in-process top 10 ≠ exhaustive, corpus (queries)`, exact?.corpus.mismatches),
  ];
  if (!first) return checks;
  return [
    ...checks,
    atLeast(`${at}: full-text QPS, concurrent / LanceDB`, divide(sp?.modes.fullText.qps, peer?.modes.fullText.qps), 1),
    atMost(
      `${at}: default request p50, concurrent / LanceDB full text`,
      divide(sp?.modes.default.concurrent?.p50, peerP50),
      2,
    ),
    atLeast(
      `${at}: ingest acknowledged / LanceDB`,
      divide(sp?.ingest.ackDocsPerSecond, peer?.ingest.ackDocsPerSecond),
      1,
    ),
    atLeast(
      `${at}: fully indexed / LanceDB`,
      divide(sp?.ingest.indexedDocsPerSecond, peer?.ingest.indexedDocsPerSecond),
      0.5,
    ),
    judged(
      `${at}: vector recall@10 (ANN vs exact cosine)`,
      sp?.recall,
      (v) => v.toFixed(3),
      '≥ 0.95',
      (v) => v >= 0.95,
    ),
    judged(
      `${at}: vector search p50 (semanticWeight 1)`,
      sp?.modes.vector.p50,
      (v) => `${v.toFixed(2)} ms`,
      '≤ 10 ms',
      (v) => v <= 10,
    ),
    none('full-text top 10 ≠ exhaustive, SciFact (queries)', exact?.scifact.mismatches),
  ];
}

/** Every target the run can judge. */
export function judgeTargets({ runs, load, postgres: pg }) {
  const realistic = runs.filter((run) => run.kind === 'realistic');
  const embedded = realistic.find((run) => run.docs === pg?.documents)?.searchplane;
  return [
    ...realistic.flatMap((run, i) => runChecks(run, i === 0)),
    atMost('upsert p50 under 16 searchers / alone', load?.ratio, 5),
    atMost(
      'PostgreSQL node B full-text p50 / embedded',
      divide(pg?.modes.fullText.p50, embedded?.modes.fullText.p50),
      1.5,
    ),
    atMost('PostgreSQL node B default p50 / embedded', divide(pg?.modes.default.p50, embedded?.modes.default.p50), 1.5),
    // A fresh node catching up a million documents is reported, not judged.
    judged(
      'PostgreSQL fresh node: first correct search',
      pg?.ready.firstSearchSeconds,
      (v) => `${v.toFixed(1)} s`,
      pg && pg.documents >= LARGE_CORPUS ? 'reported' : '≤ 60 s',
      (v) => (pg.documents >= LARGE_CORPUS ? null : v <= 60),
    ),
  ];
}
