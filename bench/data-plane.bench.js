// Data-plane benchmark, side by side with peers: corpora built from SciFact, the 300 SciFact test
// claims as queries (topK 10), and every system in its own child process.
// Run: npm run bench:data   (= npm run build && node --expose-gc bench/data-plane.bench.js)
// Prints numbers and PASS/MISS against the performance targets; it is not a timed test.
//
// Environment:
//   BENCH_SIZES           comma-separated sizes of the realistic corpus (200000): each document a
//                         SciFact title and 1–2 KB of whole SciFact sentences, fixed seed; e.g.
//                         200000,1000000 adds a million documents and the growth between the two
//   BENCH_SHORT_DOCS      size of the short-document corpus (100000; 0 skips it): a SciFact title and
//                         2–4 sentences, about a third of a realistic document
//   BENCH_PARTS           comma-separated subset of exact,fts5,peer,searchplane,load,postgres
//                         (default: all; postgres only when BENCH_DATABASE_URL is set)
//   BENCH_QUERIES         how many of the 300 test claims to time (300)
//   BENCH_WARMUP          unmeasured queries before each system's timings (30)
//   BENCH_BATCH           documents per upsert request / insert transaction / LanceDB add (100)
//   BENCH_IN_FLIGHT       upsert requests (and LanceDB adds) in flight at once (4)
//   BENCH_CLIENTS         concurrent clients of the QPS measurement (4)
//   BENCH_QPS_SECONDS     duration of each QPS measurement (10)
//   BENCH_ROUNDS          rounds of the concurrent measurements, alternating between LanceDB and
//                         searchplane when both run; each reports the median (3)
//   BENCH_LOAD_DOCS       index size of the writes-under-load part (20000)
//   BENCH_LOAD_UPSERTS    upserts of 10 documents timed alone, and again under load (200)
//   BENCH_LOAD_SEARCHERS  concurrent searchers during the loaded upserts (16)
//   BENCH_DATABASE_URL    postgres:// URL: adds the PostgreSQL part (a schema of its own, dropped after)
//   BENCH_PG_DOCS         documents of the PostgreSQL part (the largest of BENCH_SIZES)
//   BENCH_JSON=1          also print every result as one JSON line at the end
//   LANCE_CPU_THREADS     LanceDB's CPU threads (default: the cores, at least 2; fewer deadlock its index build)
//   SEARCHPLANE_EVAL_DATASET  SciFact's folder (else ../shared/datasets/scifact beside the repo, else
//                         /work/shared/datasets/scifact); read in place, never copied (CC BY-NC)
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { judgeTargets } from './lib/bench-targets.js';
import { runChild, startChild } from './lib/child-runner.js';
import { runPostgresPart } from './lib/postgres-part.js';
import { printTable } from './lib/report-table.js';
import { growthRows, printRunTable } from './lib/run-report.js';
import { corpusSummary, findDataset, loadCorpus } from './lib/scifact-corpus.js';
import { runSearchplanePart } from './lib/searchplane-part.js';
import { runWriteLoadPart } from './lib/write-load-part.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = process.env;
const int = (name, fallback) => {
  const value = Number(env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer`);
  return value;
};
const sizes = (env.BENCH_SIZES ?? '200000').split(',').map((size) => {
  const value = Number(size.trim());
  if (!Number.isInteger(value) || value <= 0) throw new Error('BENCH_SIZES must list positive integers');
  return value;
});
const settings = {
  sizes,
  shortDocs: int('BENCH_SHORT_DOCS', 100_000),
  queries: int('BENCH_QUERIES', 300),
  warmup: int('BENCH_WARMUP', 30),
  batch: int('BENCH_BATCH', 100),
  inFlight: int('BENCH_IN_FLIGHT', 4),
  clients: int('BENCH_CLIENTS', 4),
  qpsSeconds: int('BENCH_QPS_SECONDS', 10),
  rounds: Math.max(1, int('BENCH_ROUNDS', 3)),
  loadDocs: int('BENCH_LOAD_DOCS', 20_000),
  loadUpserts: int('BENCH_LOAD_UPSERTS', 200),
  searchers: int('BENCH_LOAD_SEARCHERS', 16),
  pgDocs: int('BENCH_PG_DOCS', Math.max(...sizes)),
};
const databaseUrl = env.BENCH_DATABASE_URL;
const ALL_PARTS = ['exact', 'fts5', 'peer', 'searchplane', 'load', 'postgres'];
const parts = new Set(
  (env.BENCH_PARTS ?? ALL_PARTS.join(','))
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean),
);
for (const part of parts) if (!ALL_PARTS.includes(part)) throw new Error(`BENCH_PARTS: unknown part '${part}'`);
if (!databaseUrl && parts.delete('postgres') && env.BENCH_PARTS)
  console.log('postgres part skipped: BENCH_DATABASE_URL is not set');

const verdict = (pass) => (pass === undefined ? 'SKIPPED' : pass === null ? 'INFO' : pass ? 'PASS' : 'MISS');
const started = performance.now();
const log = (line) => console.log(line);
const progress = (part) => (line) => process.stderr.write(`  [${part}] ${line}\n`);
const datasetDir = findDataset(root, env);
/** Each corpus run: the realistic corpus at every size, then the short one. */
const runs = [
  ...sizes.map((docs) => ({ kind: 'realistic', docs })),
  ...(settings.shortDocs > 0 ? [{ kind: 'short', docs: settings.shortDocs }] : []),
];
log(
  `data-plane bench: corpora ${runs.map((run) => `${run.kind} ${run.docs}`).join(', ')} from SciFact (${datasetDir}); ` +
    `${settings.queries} test claims, topK 10; parts ${[...parts].join(',')}; node ${process.version}, ${os.cpus().length} cpus`,
);

const workDir = mkdtempSync(path.join(os.tmpdir(), 'searchplane-data-bench-'));
// Child processes get the terminal's signal too; this process removes what they leave behind.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    rmSync(workDir, { recursive: true, force: true });
    process.exit(130);
  });
}
const lib = (file) => fileURLToPath(new URL(`./lib/${file}`, import.meta.url));
const results = { runs: [] };
try {
  for (const run of runs) {
    const corpus = await loadCorpus(datasetDir, run.docs, run.kind);
    const summary = corpusSummary(corpus.documents());
    const queries = corpus.queries.slice(0, settings.queries);
    const label = `${run.kind} ${run.docs}`;
    log(
      `\n${label}: ${(summary.textBytes / 2 ** 20).toFixed(1)} MiB of text, ${summary.meanBytes.toFixed(0)} bytes/doc`,
    );
    const childOptions = {
      datasetDir,
      docs: run.docs,
      kind: run.kind,
      expect: summary.fingerprint,
      ...settings,
    };
    const result = { ...run, textBytes: summary.textBytes };
    if (parts.has('exact')) result.exact = await runChild(lib('full-text-exactness.child.js'), childOptions);
    if (parts.has('fts5')) result.fts5 = await runChild(lib('fts5-system.child.js'), { ...childOptions, workDir });
    // With both, LanceDB stays up while searchplane is measured, and their concurrent measurements
    // alternate: LanceDB, searchplane, LanceDB, searchplane... (BENCH_ROUNDS each).
    const interleaved = parts.has('peer') && parts.has('searchplane') && settings.rounds > 1;
    const peer = parts.has('peer')
      ? startChild(lib('lancedb-system.child.js'), {
          ...childOptions,
          workDir,
          rounds: interleaved ? settings.rounds : 1,
        })
      : undefined;
    if (peer && !interleaved) result.peer = await peer.result;
    if (interleaved) await peer.ready;
    if (parts.has('searchplane')) {
      result.searchplane = await runSearchplanePart({
        workDir,
        name: `searchplane-${run.kind}-${run.docs}`,
        documents: corpus.documents,
        total: run.docs,
        queries,
        settings,
        exhaustive: result.exact?.corpus.topLists,
        progress: progress(`searchplane ${label}`),
        rounds: interleaved ? settings.rounds : 1,
        betweenRounds: () => peer.ask('qps'),
      });
    }
    if (interleaved) {
      peer.send('finish');
      result.peer = await peer.result;
    }
    if (result.exact) delete result.exact.corpus.topLists;
    printRunTable(result, settings, log);
    results.runs.push(result);
  }
  if (parts.has('load')) {
    const corpus = await loadCorpus(datasetDir, 0, 'realistic');
    const context = {
      workDir,
      scifact: corpus.scifact,
      queries: corpus.queries.slice(0, settings.queries),
      settings,
      progress: progress('load'),
    };
    results.load = await runWriteLoadPart(context);
  }
  if (parts.has('postgres')) {
    const corpus = await loadCorpus(datasetDir, settings.pgDocs, 'realistic');
    results.postgres = await runPostgresPart({
      workDir,
      databaseUrl,
      documents: corpus.documents,
      total: settings.pgDocs,
      queries: corpus.queries.slice(0, settings.queries),
      settings,
      progress: progress('postgres'),
    });
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
report(results);
log(`total time ${((performance.now() - started) / 1000 / 60).toFixed(1)} min`);
if (env.BENCH_JSON === '1') log(JSON.stringify({ settings: { ...settings, parts: [...parts] }, results }));

function report({ runs: done, load, postgres }) {
  const realistic = done.filter((run) => run.kind === 'realistic');
  if (realistic.length > 1) {
    log(`\nGrowth of the realistic corpus from ${realistic[0].docs} to ${realistic.at(-1).docs} documents`);
    const { header, rows } = growthRows(realistic[0], realistic.at(-1));
    printTable(header, rows, log);
  }
  if (load) {
    log(`\nWrites under search load: ${load.documents} documents, upserts of ${load.perRequest} documents`);
    printTable(
      ['upserts', 'p50 ms', 'p95 ms', 'search QPS'],
      [
        ['alone', load.unloaded.p50.toFixed(2), load.unloaded.p95.toFixed(2), load.searchQpsAlone.toFixed(1)],
        [
          `with ${load.searchers} searchers (default request)`,
          load.loaded.p50.toFixed(2),
          load.loaded.p95.toFixed(2),
          load.searchQpsDuringWrites.toFixed(1),
        ],
      ],
      log,
    );
    if (load.searchErrors) log(`search errors during the load part: ${load.searchErrors}`);
  }
  if (postgres) {
    const { listenSeconds, firstSearchSeconds, indexedSeconds, peakRss } = postgres.ready;
    log(
      `\nPostgreSQL, ${postgres.documents} documents: upserts through node A at ${Math.round(postgres.ingest.ackDocsPerSecond)}/s; ` +
        `node B full text p50 ${postgres.modes.fullText.p50.toFixed(2)} ms, default p50 ${postgres.modes.default.p50.toFixed(2)} ms`,
    );
    log(
      `fresh node C (empty data dir): listening after ${listenSeconds.toFixed(1)} s, first correct search after ` +
        `${firstSearchSeconds.toFixed(1)} s, vectors fully indexed after ${indexedSeconds.toFixed(1)} s; ` +
        `peak RSS while catching up ${(peakRss / 2 ** 20).toFixed(0)} MB`,
    );
  }
  const checks = judgeTargets({ runs: done, load, postgres });
  log('\nTargets (ratios from this run)');
  printTable(
    ['target', 'value', 'goal', 'result'],
    checks.map((c) => [c.name, c.shown, c.target, verdict(c.pass)]),
    log,
  );
  results.targets = checks.map(({ name, value, target, pass }) => ({ name, value, target, pass }));
}
