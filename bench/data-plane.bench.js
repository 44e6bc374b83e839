// Data-plane benchmark, side by side with peers (issues #11, #7, #8): one corpus built from SciFact,
// the 300 SciFact test claims as queries (topK 10), and every system in its own child process.
// Run: npm run bench:data   (= npm run build && node --expose-gc bench/data-plane.bench.js)
// Prints numbers and PASS/MISS against the issues' targets; it is not a timed test.
//
// Environment:
//   BENCH_DOCS            documents in the corpus (100000): SciFact titles + 2–4 SciFact sentences, fixed seed
//   BENCH_PARTS           comma-separated subset of exact,fts5,peer,searchplane,load,postgres
//                         (default: all; postgres only when BENCH_DATABASE_URL is set)
//   BENCH_QUERIES         how many of the 300 test claims to time (300)
//   BENCH_WARMUP          unmeasured queries before each system's timings (30)
//   BENCH_BATCH           documents per upsert request / insert transaction / LanceDB add (100)
//   BENCH_IN_FLIGHT       upsert requests (and LanceDB adds) in flight at once (4)
//   BENCH_CLIENTS         concurrent clients of the QPS measurement (4)
//   BENCH_QPS_SECONDS     duration of each QPS measurement (10)
//   BENCH_LOAD_DOCS       index size of the writes-under-load part (20000)
//   BENCH_LOAD_UPSERTS    upserts of 10 documents timed alone, and again under load (200)
//   BENCH_LOAD_SEARCHERS  concurrent searchers during the loaded upserts (16)
//   BENCH_DATABASE_URL    postgres:// URL: adds the two-node PostgreSQL part (a schema of its own, dropped after)
//   BENCH_JSON=1          also print every result as one JSON line at the end
//   LANCE_CPU_THREADS     LanceDB's CPU threads (default: the cores, at least 2; fewer deadlock its index build)
//   SEARCHPLANE_EVAL_DATASET  SciFact's folder (else ../shared/datasets/scifact beside the repo, else
//                         /work/shared/datasets/scifact); read in place, never copied (CC BY-NC)
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { judgeTargets } from './lib/bench-targets.js';
import { runChild } from './lib/child-runner.js';
import { runPostgresPart } from './lib/postgres-part.js';
import { mb, ms, printTable, qps, rate } from './lib/report-table.js';
import { findDataset, fingerprint, loadCorpus } from './lib/scifact-corpus.js';
import { runSearchplanePart } from './lib/searchplane-part.js';
import { runWriteLoadPart } from './lib/write-load-part.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = process.env;
const int = (name, fallback) => {
  const value = Number(env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer`);
  return value;
};
const settings = {
  docs: int('BENCH_DOCS', 100_000),
  queries: int('BENCH_QUERIES', 300),
  warmup: int('BENCH_WARMUP', 30),
  batch: int('BENCH_BATCH', 100),
  inFlight: int('BENCH_IN_FLIGHT', 4),
  clients: int('BENCH_CLIENTS', 4),
  qpsSeconds: int('BENCH_QPS_SECONDS', 10),
  loadDocs: int('BENCH_LOAD_DOCS', 20_000),
  loadUpserts: int('BENCH_LOAD_UPSERTS', 200),
  searchers: int('BENCH_LOAD_SEARCHERS', 16),
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

const started = performance.now();
const log = (line) => console.log(line);
const progress = (part) => (line) => process.stderr.write(`  [${part}] ${line}\n`);
const datasetDir = findDataset(root, env);
const corpus = await loadCorpus(datasetDir, settings.docs);
const queries = corpus.queries.slice(0, settings.queries);
const childOptions = { datasetDir, docs: settings.docs, expect: fingerprint(corpus.documents), ...settings };
log(
  `data-plane bench: ${settings.docs} documents from SciFact (${datasetDir}), ${queries.length} test claims, topK 10; ` +
    `parts ${[...parts].join(',')}; node ${process.version}, ${os.cpus().length} cpus`,
);

const workDir = mkdtempSync(path.join(os.tmpdir(), 'searchplane-data-bench-'));
const results = {};
// Child processes get the terminal's signal too; this process removes what they leave behind.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    rmSync(workDir, { recursive: true, force: true });
    process.exit(130);
  });
}
const lib = (file) => fileURLToPath(new URL(`./lib/${file}`, import.meta.url));
try {
  if (parts.has('exact')) results.exact = await runChild(lib('full-text-exactness.child.js'), childOptions);
  if (parts.has('fts5')) results.fts5 = await runChild(lib('fts5-system.child.js'), { ...childOptions, workDir });
  if (parts.has('peer')) results.peer = await runChild(lib('lancedb-system.child.js'), { ...childOptions, workDir });
  if (parts.has('searchplane')) {
    const context = { workDir, documents: corpus.documents, queries, settings, progress: progress('searchplane') };
    results.searchplane = await runSearchplanePart(context);
  }
  if (parts.has('load')) {
    const context = { workDir, scifact: corpus.scifact, queries, settings, progress: progress('load') };
    results.load = await runWriteLoadPart(context);
  }
  if (parts.has('postgres')) {
    const context = {
      workDir,
      databaseUrl,
      documents: corpus.documents,
      queries,
      settings,
      progress: progress('postgres'),
    };
    results.postgres = await runPostgresPart(context);
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
report(results);
log(`total time ${((performance.now() - started) / 1000 / 60).toFixed(1)} min`);
if (env.BENCH_JSON === '1') log(JSON.stringify({ settings: { ...settings, parts: [...parts] }, results }));

function report({ searchplane: sp, fts5, peer, exact, load, postgres }) {
  const rows = [];
  const row = (name, system, mode, withIngest) =>
    rows.push([
      name,
      withIngest ? rate(system.ingest.ackDocsPerSecond) : '',
      withIngest ? rate(system.ingest.indexedDocsPerSecond) : '',
      ms(system.modes[mode].p50),
      ms(system.modes[mode].p95),
      qps(system.modes[mode].qps),
      withIngest ? mb(system.rss) : '',
      withIngest ? mb(system.disk) : '',
    ]);
  if (sp) {
    row('searchplane HTTP, full text (w 0)', sp, 'fullText', true);
    row('searchplane HTTP, default request', sp, 'default', false);
    row('searchplane HTTP, vector (w 1)', sp, 'vector', false);
  }
  if (fts5) row('SQLite FTS5, porter + bm25()', fts5, 'fullText', true);
  if (peer) row('LanceDB full-text index', peer, 'fullText', true);
  if (postgres) {
    rows.push(['PostgreSQL 2 nodes: upsert via A', rate(postgres.ingest.ackDocsPerSecond), '', '', '', '', '', '']);
    row('  search node B, full text', postgres, 'fullText', false);
    row('  search node B, default request', postgres, 'default', false);
  }
  const header = ['system', 'ingest acked/s', 'fully indexed/s', 'p50 ms', 'p95 ms', 'QPS', 'RSS', 'disk'];
  if (rows.length) {
    log(`\nSearch and ingest at ${settings.docs} documents (QPS: ${settings.clients} concurrent clients)`);
    printTable(header, rows, log);
  }
  if (sp) {
    log('searchplane: client in this process, server in its own; full text = semanticWeight 0, no input enrichment;');
    log('default = what @upstash/search sends for search({query, limit: 10}) (0.75, enrichment on).');
    log(`vector recall@10 vs exact cosine (builtin embedder, ${queries.length} queries): ${sp.recall.toFixed(3)}`);
    if (sp.resident)
      log(
        `searchplane RSS ${mb(sp.rss)} = ${mb(sp.resident.anon)} private + ${mb(sp.resident.file)} mapped file pages ` +
          '(SQLite memory-mapped reads: OS page cache, reclaimable)',
      );
  }
  if (fts5 || peer) log('SQLite FTS5 and LanceDB run in their own processes, queried in process (no HTTP).');
  if (exact) {
    for (const [name, part] of [
      ['SciFact', exact.scifact],
      ['corpus', exact.corpus],
    ]) {
      log(
        `FullTextIndex.search vs searchExhaustive on ${name} (${part.documents} docs, ${part.queries} queries): ` +
          `${part.mismatches} mismatches; in process p50 ${ms(part.pruned.p50)} ms vs ${ms(part.exhaustive.p50)} ms`,
      );
    }
  }
  if (load) {
    log(`\nWrites under search load: ${load.documents} documents, upserts of ${load.perRequest} documents`);
    printTable(
      ['upserts', 'p50 ms', 'p95 ms', 'search QPS'],
      [
        ['alone', ms(load.unloaded.p50), ms(load.unloaded.p95), qps(load.searchQpsAlone)],
        [
          `with ${load.searchers} searchers (default request)`,
          ms(load.loaded.p50),
          ms(load.loaded.p95),
          qps(load.searchQpsDuringWrites),
        ],
      ],
      log,
    );
    if (load.searchErrors) log(`search errors during the load part: ${load.searchErrors}`);
  }
  if (postgres) {
    const { listenSeconds, firstSearchSeconds, indexedSeconds } = postgres.ready;
    log(
      `\nPostgreSQL fresh node C (empty data dir): listening after ${listenSeconds.toFixed(1)} s, first correct search ` +
        `after ${firstSearchSeconds.toFixed(1)} s, vectors fully indexed after ${indexedSeconds.toFixed(1)} s`,
    );
  }
  log(`\nTargets (ratios from this run, ${settings.docs} documents)`);
  const checks = judgeTargets(results, settings.docs);
  printTable(
    ['target', 'value', 'goal', 'result'],
    checks.map((c) => [c.name, c.shown, c.target, c.pass === undefined ? 'SKIPPED' : c.pass ? 'PASS' : 'MISS']),
    log,
  );
  results.targets = checks.map(({ name, value, target, pass }) => ({ name, value, target, pass }));
}
