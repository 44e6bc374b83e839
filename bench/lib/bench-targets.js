// The targets of issues #11, #7 and #8, judged from one run's results. Each check is
// `{ name, value, shown, target, pass }`; `pass` is undefined when the parts it needs did not run.

const check = (name, value, shown, target, test) => ({
  name,
  value,
  shown: value === undefined || Number.isNaN(value) ? '–' : shown(value),
  target,
  pass: value === undefined || Number.isNaN(value) ? undefined : test(value),
});
const times = (value) => `${value.toFixed(2)}×`;

/** Every target the run can judge, in the order the issues list them. */
export function judgeTargets({ searchplane, peer, exact, load, postgres }) {
  const sp = searchplane;
  return [
    check(
      'searchplane full-text p50 / peer full-text p50',
      sp && peer && sp.modes.fullText.p50 / peer.modes.fullText.p50,
      times,
      '≤ 3×',
      (v) => v <= 3,
    ),
    check(
      'searchplane ingest acknowledged / peer',
      sp && peer && sp.ingest.ackDocsPerSecond / peer.ingest.ackDocsPerSecond,
      times,
      '≥ 0.7×',
      (v) => v >= 0.7,
    ),
    check(
      'searchplane fully indexed / peer',
      sp && peer && sp.ingest.indexedDocsPerSecond / peer.ingest.indexedDocsPerSecond,
      times,
      '≥ 0.3×',
      (v) => v >= 0.3,
    ),
    check(
      'vector recall@10 (ANN path vs exact cosine)',
      sp?.recall,
      (v) => v.toFixed(3),
      '≥ 0.95',
      (v) => v >= 0.95,
    ),
    check(
      'vector search p50 (semanticWeight 1)',
      sp?.modes.vector.p50,
      (v) => `${v.toFixed(2)} ms`,
      '≤ 10 ms',
      (v) => v <= 10,
    ),
    check('full-text top 10 ≠ exhaustive, SciFact (queries)', exact?.scifact.mismatches, String, '0', (v) => v === 0),
    check('full-text top 10 ≠ exhaustive, corpus (queries)', exact?.corpus.mismatches, String, '0', (v) => v === 0),
    check('upsert p50 under 16 searchers / alone', load?.ratio, times, '≤ 5×', (v) => v <= 5),
    check(
      'PostgreSQL node B full-text p50 / embedded',
      postgres && sp && postgres.modes.fullText.p50 / sp.modes.fullText.p50,
      times,
      '≤ 1.5×',
      (v) => v <= 1.5,
    ),
    check(
      'PostgreSQL node B default p50 / embedded',
      postgres && sp && postgres.modes.default.p50 / sp.modes.default.p50,
      times,
      '≤ 1.5×',
      (v) => v <= 1.5,
    ),
    check(
      'PostgreSQL fresh node: first correct search',
      postgres?.ready.firstSearchSeconds,
      (v) => `${v.toFixed(1)} s`,
      '≤ 60 s',
      (v) => v <= 60,
    ),
  ];
}
