// Part "peer": LanceDB's full-text index (@lancedb/lancedb, in this child process) on the same
// text. Ingest: `add` in batches with several in flight (acknowledged), then compaction of the
// small fragments and the FTS index build (fully indexed). English stemming on, as FTS5's porter
// and searchplane's Porter2; other tokenizer settings are LanceDB's defaults (stop words removed).
// Throughput: concurrent queries from this process (LanceDB runs them on its own native threads).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dirSize, ingestRates, latencySummary, medianRound, settledRss, throughput, timeEach } from './bench-stats.js';
import { childMain } from './child-runner.js';
import { batches, childCorpus, combinedText } from './scifact-corpus.js';

// Lance sizes its CPU pool at cores − 2 (at least 1); with one thread its FTS index build deadlocks
// (lancedb issue #3568: a 100k-row build here never finished). Same number of threads as cores,
// at least 2, set before the native library loads.
process.env.LANCE_CPU_THREADS ??= String(Math.max(2, os.cpus().length));
const lancedb = await import('@lancedb/lancedb');

/** The query's words, space-separated: LanceDB matches any of them (OR), as FTS5 gets them. */
const words = (text) => [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].join(' ');

childMain('lancedb', async (options, { progress, ready, onMessage, reply }) => {
  const { workDir, batch, inFlight, clients, qpsSeconds, warmup, rounds = 1 } = options;
  const corpus = await childCorpus(options);
  const { queries, total } = corpus;
  const dir = mkdtempSync(path.join(workDir, 'lancedb-'));
  const db = await lancedb.connect(dir);
  const rows = (slice) => slice.map((doc) => ({ id: doc.id, text: combinedText(doc) }));

  const slices = batches(corpus.documents(), batch);
  const start = performance.now();
  const table = await db.createTable('docs', rows(slices.next().value));
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let slice = slices.next(); !slice.done; slice = slices.next()) await table.add(rows(slice.value));
    }),
  );
  const ackSeconds = (performance.now() - start) / 1000;
  progress(`${total} rows added in ${ackSeconds.toFixed(1)} s; compacting and building the FTS index`);
  await table.optimize({ cleanupOlderThan: new Date() });
  await table.createIndex('text', {
    config: lancedb.Index.fts({ withPosition: false, stem: true, language: 'English' }),
  });
  await table.optimize({ cleanupOlderThan: new Date() });
  const indexedSeconds = (performance.now() - start) / 1000;
  // The benchmark's own copy of the corpus is not the system's memory.
  corpus.release();
  const rss = settledRss();
  if ((await table.countRows()) !== total) throw new Error('row count differs');
  progress(`fully indexed at ${indexedSeconds.toFixed(1)} s`);

  const texts = queries.map(words);
  const search = (text) => table.query().fullTextSearch(text).limit(10).toArray();
  await timeEach(texts.slice(0, warmup), search);
  let hits = 0;
  const latency = latencySummary(
    await timeEach(texts, async (text) => {
      hits += (await search(text)).length;
    }),
  );
  latency.avgHits = hits / texts.length;
  progress(`p50 ${latency.p50.toFixed(2)} ms, p95 ${latency.p95.toFixed(2)} ms, ${latency.avgHits} hits/query`);
  const measureLoad = async () => {
    const load = await throughput(texts, search, { clients, seconds: qpsSeconds });
    progress(`${load.qps.toFixed(1)} QPS with ${clients} concurrent queries, p50 ${load.p50.toFixed(2)} ms`);
    return load;
  };
  const loads = [await measureLoad()];
  if (rounds > 1) {
    // The parent asks for the other rounds between searchplane's own, then says `finish`.
    const finished = new Promise((resolve) => {
      onMessage(async (message) => {
        if (message === 'qps') {
          const load = await measureLoad();
          loads.push(load);
          reply(load);
        } else if (message === 'finish') resolve();
      });
    });
    ready();
    await finished;
  }
  const load = medianRound(loads);
  table.close();
  db.close();
  const disk = dirSize(dir);
  rmSync(dir, { recursive: true, force: true });
  return {
    ingest: ingestRates(total, ackSeconds, indexedSeconds),
    modes: { fullText: { ...latency, ...load } },
    rss,
    disk,
  };
});
