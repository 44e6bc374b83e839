// What the benchmark does to a searchplane index over HTTP: batched upserts with several requests
// in flight, waiting for the vector index, timing searches, and throughput from a separate process.
import { fileURLToPath } from 'node:url';
import { latencySummary, sleep, timeEach } from './bench-stats.js';
import { startChild } from './child-runner.js';
import { batches } from './scifact-corpus.js';
import { toUpsert } from './searchplane-node.js';

const LOAD_CHILD = fileURLToPath(new URL('./http-load.child.js', import.meta.url));

/**
 * Upserts `documents` (an iterable) in batches of `batch` with `inFlight` requests at a time;
 * resolves to the seconds until the last one was acknowledged.
 */
export async function ingest(client, documents, { batch, inFlight, progress }) {
  const slices = batches(documents, batch);
  let done = 0;
  let reported = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let slice = slices.next(); !slice.done; slice = slices.next()) {
        await client.post('/upsert-data/bench', slice.value.map(toUpsert));
        done += slice.value.length;
        if (progress && done - reported >= 50_000) {
          reported = done;
          progress(`${done} acknowledged, ${(done / ((performance.now() - start) / 1000)).toFixed(0)} docs/s`);
        }
      }
    }),
  );
  return (performance.now() - start) / 1000;
}

/** Polls `info` until no vector is pending; resolves to the last info. */
export async function waitIndexed(client, { intervalMs = 200 } = {}) {
  for (;;) {
    const info = await client.post('/info');
    if (info.pendingVectorCount === 0) return info;
    await sleep(intervalMs);
  }
}

/** Single-client latencies of one request per query; `{ count, p50, p95, mean, hits }` (hits: results per query). */
export async function timeSearches(client, queries, makeBody) {
  const hits = [];
  const times = await timeEach(queries, async (query, i) => {
    hits.push(await client.post('/search/bench', makeBody(query, i)));
  });
  const avgHits = hits.reduce((sum, list) => sum + list.length, 0) / Math.max(1, hits.length);
  return { ...latencySummary(times), avgHits, hits };
}

/**
 * Starts a load generator process: `clients` concurrent loops posting `bodies` (round robin) to
 * `path` of the index. Returns the child; send `stop` to end it early, `result` is
 * `{ qps, requests, p50, p95, errors }`.
 */
export function startLoad({ dataUrl, token, path, bodies, clients, seconds }) {
  return startChild(LOAD_CHILD, { dataUrl, token, path, bodies, clients, seconds });
}

/**
 * Throughput of `clients` concurrent searchers for `seconds`, measured by a separate process after
 * an unmeasured run of the same load (a server's first concurrent burst is much slower than the
 * rest, and a load generator process needs its own warm-up too).
 */
export async function searchThroughput(index, queries, makeBody, { clients, seconds }) {
  const bodies = queries.map(makeBody);
  await startLoad({ ...index, path: '/search/bench', bodies, clients, seconds: Math.min(3, seconds) }).result;
  return startLoad({ ...index, path: '/search/bench', bodies, clients, seconds }).result;
}
