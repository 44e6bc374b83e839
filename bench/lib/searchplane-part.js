// Part "searchplane": a real server process, the corpus upserted over HTTP, then search latency
// (one client, then several from a separate process), RSS, disk, vector recall@10, and the full-text
// answers checked against exhaustive BM25.
import { dirSize, ingestRates, medianRound, residentParts, rssOf } from './bench-stats.js';
import { exactNeighbours, recallAtK } from './exact-neighbours.js';
import { jsonClient } from './http-json.js';
import { createIndex, SEARCH_MODES, startSearchplane } from './searchplane-node.js';
import { ingest, searchThroughput, timeSearches, waitIndexed } from './searchplane-ops.js';

/** Filtered searches timed: each scans the namespace, so a few dozen tell its cost. */
const FILTERED_QUERIES = 30;

/**
 * Runs the part on `total` documents (`documents()` iterates them), with a server whose data dir
 * is `workDir/name`; resolves to
 * `{ ingest: {ackDocsPerSecond, indexedDocsPerSecond, ...}, modes: {fullText, default, vector}:
 * {p50, p95, qps, concurrent: {p50, p95}}, rss, resident: {anon, file}, indexedRss, disk, recall,
 * exactness }`. `exhaustive`, when given, holds per query the exhaustive BM25 top list
 * (`[id, score]`, best first) that the full-text answers must match. The concurrent measurements
 * run `rounds` times, `betweenRounds()` between two (a peer's round), and report the median.
 */
export async function runSearchplanePart({
  workDir,
  name,
  documents,
  total,
  queries,
  settings,
  exhaustive,
  progress,
  rounds = 1,
  betweenRounds = async () => {},
}) {
  const server = await startSearchplane({ workDir, name });
  const index = await createIndex(server, 'bench');
  const client = jsonClient(index.dataUrl, index.token);
  try {
    progress(`server pid ${server.pid}; upserting ${total} documents`);
    const ackSeconds = await ingest(client, documents(), {
      batch: settings.batch,
      inFlight: settings.inFlight,
      progress,
    });
    const start = performance.now();
    const info = await waitIndexed(client);
    const indexedSeconds = ackSeconds + (performance.now() - start) / 1000;
    const indexedRss = rssOf(server.pid);
    progress(`acknowledged in ${ackSeconds.toFixed(1)} s, vectors indexed at ${indexedSeconds.toFixed(1)} s`);
    if (info.vectorCount !== total) throw new Error(`info reports ${info.vectorCount} documents`);

    await timeSearches(client, queries.slice(0, settings.warmup), SEARCH_MODES.default);
    const modes = {};
    const hitLists = {};
    for (const mode of ['fullText', 'default', 'vector']) {
      const { hits, ...latency } = await timeSearches(client, queries, SEARCH_MODES[mode]);
      modes[mode] = latency;
      hitLists[mode] = hits;
      progress(
        `${mode}: p50 ${latency.p50.toFixed(2)} ms, p95 ${latency.p95.toFixed(2)} ms, ${latency.avgHits} hits/query`,
      );
    }
    {
      const { hits, ...latency } = await timeSearches(
        client,
        queries.slice(0, FILTERED_QUERIES),
        SEARCH_MODES.filtered,
      );
      modes.filtered = latency;
      progress(`filtered (each a scan): p50 ${latency.p50.toFixed(2)} ms, p95 ${latency.p95.toFixed(2)} ms`);
    }
    const loads = { fullText: [], default: [] };
    for (let round = 0; round < rounds; round++) {
      if (round > 0) await betweenRounds();
      for (const mode of ['fullText', 'default']) {
        const load = await searchThroughput(index, queries, SEARCH_MODES[mode], {
          clients: settings.clients,
          seconds: settings.qpsSeconds,
        });
        loads[mode].push(load);
        progress(
          `${mode}: ${load.qps.toFixed(1)} QPS with ${settings.clients} clients, p50 ${load.p50.toFixed(2)} ms ` +
            `(${load.errors} errors)`,
        );
      }
    }
    for (const mode of ['fullText', 'default']) Object.assign(modes[mode], medianRound(loads[mode]));
    const rss = rssOf(server.pid);
    const resident = residentParts(server.pid);
    const exactness = exhaustive ? fullTextMismatches(hitLists.fullText, exhaustive) : undefined;
    if (exactness) progress(`full-text answers ≠ exhaustive BM25: ${exactness.mismatches} of ${exactness.queries}`);

    const disk = await stopAndMeasure(server, client);
    progress('exact neighbours for recall@10 (the stored vectors, every document)');
    const exact = await exactNeighbours(server.dataDir, index.id, 'bench', queries);
    const recall = recallAtK(exact, hitLists.vector);

    return {
      ingest: ingestRates(total, ackSeconds, indexedSeconds),
      modes,
      rss,
      resident,
      indexedRss,
      recall,
      disk,
      exactness,
    };
  } finally {
    client.close();
    await server.stop();
  }
}

/**
 * Queries whose full-text answer differs from exhaustive BM25: the scores (exhaustive ones, looked
 * up by id) of the answer's documents must be the exhaustive top 10's, in order. Documents with
 * equal scores may come in either order: the server numbers documents in the order its upserts
 * committed, the reference in corpus order.
 */
function fullTextMismatches(hitLists, exhaustive) {
  let mismatches = 0;
  hitLists.forEach((hits, q) => {
    const reference = exhaustive[q];
    const scoreOf = new Map(reference);
    const expected = reference.slice(0, 10).map(([, score]) => score);
    const got = hits.map((hit) => scoreOf.get(hit.id));
    if (got.length !== expected.length || got.some((score, i) => score !== expected[i])) mismatches++;
  });
  return { queries: hitLists.length, mismatches };
}

/** Stops the server (graceful: the vector graph is written) and returns its data dir's size. */
async function stopAndMeasure(server, client) {
  client.close();
  await server.stop();
  return dirSize(server.dataDir);
}
