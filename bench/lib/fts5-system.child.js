// Part "fts5": SQLite FTS5 alone on the same text, in this child process (better-sqlite3, porter
// tokenizer, bm25(); WAL and synchronous=NORMAL as searchplane's files). Ingest: one transaction per
// batch. Queries: an OR of the query's words. Throughput: worker threads, each its own connection.
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { dirSize, ingestRates, latencySummary, settledRss, timeEach } from './bench-stats.js';
import { childMain } from './child-runner.js';
import { orQuery, SEARCH_SQL } from './fts5-sql.js';
import { batches, childCorpus, combinedText } from './scifact-corpus.js';

childMain('fts5', async (options, { progress }) => {
  const { workDir, batch, clients, qpsSeconds, warmup } = options;
  const corpus = await childCorpus(options);
  const { queries, total } = corpus;
  const dir = mkdtempSync(path.join(workDir, 'fts5-'));
  const file = path.join(dir, 'fts5.sqlite');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, text, tokenize = 'porter unicode61')`);
  const insert = db.prepare('INSERT INTO docs (id, text) VALUES (?, ?)');
  const insertBatch = db.transaction((slice) => {
    for (const doc of slice) insert.run(doc.id, combinedText(doc));
  });
  const start = performance.now();
  for (const slice of batches(corpus.documents(), batch)) insertBatch(slice);
  const ackSeconds = (performance.now() - start) / 1000;
  // The benchmark's own copy of the corpus is not the system's memory.
  corpus.release();
  const rss = settledRss();
  progress(`${total} documents in ${ackSeconds.toFixed(1)} s`);

  const search = db.prepare(SEARCH_SQL);
  const matches = queries.map(orQuery);
  await timeEach(matches.slice(0, warmup), (match) => search.all(match));
  let hits = 0;
  const latency = latencySummary(
    await timeEach(matches, (match) => {
      hits += search.all(match).length;
    }),
  );
  latency.avgHits = hits / matches.length;
  progress(`p50 ${latency.p50.toFixed(2)} ms, p95 ${latency.p95.toFixed(2)} ms, ${latency.avgHits} hits/query`);
  const load = await workerThroughput(file, matches, clients, qpsSeconds);
  progress(`${load.qps.toFixed(1)} QPS with ${clients} worker threads, p50 ${load.p50.toFixed(2)} ms`);
  db.close();
  const disk = dirSize(dir);
  rmSync(dir, { recursive: true, force: true });
  return {
    ingest: ingestRates(total, ackSeconds),
    modes: { fullText: { ...latency, qps: load.qps, concurrent: { p50: load.p50, p95: load.p95 } } },
    rss,
    disk,
  };
});

/** `{ qps, p50, p95 }` of `clients` worker threads, each with its own read connection. */
async function workerThroughput(file, matches, clients, seconds) {
  const workerFile = new URL('./fts5-reader.worker.js', import.meta.url);
  const counts = await Promise.all(
    Array.from({ length: clients }, (_, i) => {
      const worker = new Worker(workerFile, { workerData: { file, matches, seconds, offset: i * 37 } });
      return new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
    }),
  );
  let elapsed = 0;
  const times = [];
  for (const count of counts) {
    times.push(...count.times);
    elapsed = Math.max(elapsed, count.seconds);
  }
  const { p50, p95 } = latencySummary(times);
  return { qps: times.length / elapsed, p50, p95 };
}
