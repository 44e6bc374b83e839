// Part "searchplane": a real server process, the corpus upserted over HTTP, then search latency
// (single client), throughput (a separate client process), RSS, disk and vector recall@10.
import { dirSize, ingestRates, residentParts, rssOf } from './bench-stats.js';
import { exactNeighbours, recallAtK } from './exact-neighbours.js';
import { jsonClient } from './http-json.js';
import { createIndex, SEARCH_MODES, startSearchplane } from './searchplane-node.js';
import { ingest, searchThroughput, timeSearches, waitIndexed } from './searchplane-ops.js';

/**
 * Runs the part; resolves to `{ ingest: {ackDocsPerSecond, indexedDocsPerSecond, ...},
 * modes: {fullText, default, vector}: {p50, p95, qps}, rss, resident: {anon, file}, disk, recall }`.
 */
export async function runSearchplanePart({ workDir, documents, queries, settings, progress }) {
  const server = await startSearchplane({ workDir, name: 'searchplane-embedded' });
  const index = await createIndex(server, 'bench');
  const client = jsonClient(index.dataUrl, index.token);
  try {
    progress(`server pid ${server.pid}; upserting ${documents.length} documents`);
    const ackSeconds = await ingest(client, documents, {
      batch: settings.batch,
      inFlight: settings.inFlight,
      progress,
    });
    const start = performance.now();
    const info = await waitIndexed(client);
    const indexedSeconds = ackSeconds + (performance.now() - start) / 1000;
    const rss = rssOf(server.pid);
    const resident = residentParts(server.pid);
    progress(`acknowledged in ${ackSeconds.toFixed(1)} s, vectors indexed at ${indexedSeconds.toFixed(1)} s`);
    if (info.vectorCount !== documents.length) throw new Error(`info reports ${info.vectorCount} documents`);

    await timeSearches(client, queries.slice(0, settings.warmup), SEARCH_MODES.default);
    const modes = {};
    for (const mode of ['fullText', 'default', 'vector']) {
      const latency = await timeSearches(client, queries, SEARCH_MODES[mode]);
      modes[mode] = { ...latency, hits: undefined };
      if (mode === 'vector') modes.vector.hitLists = latency.hits;
      progress(
        `${mode}: p50 ${latency.p50.toFixed(2)} ms, p95 ${latency.p95.toFixed(2)} ms, ${latency.avgHits} hits/query`,
      );
    }
    for (const mode of ['fullText', 'default']) {
      const load = await searchThroughput(index, queries, SEARCH_MODES[mode], {
        clients: settings.clients,
        seconds: settings.qpsSeconds,
      });
      modes[mode].qps = load.qps;
      progress(`${mode}: ${load.qps.toFixed(1)} QPS with ${settings.clients} clients (${load.errors} errors)`);
    }

    const disk = await stopAndMeasure(server, client);
    progress('exact neighbours for recall@10 (the stored vectors, every document)');
    const exact = await exactNeighbours(server.dataDir, index.id, 'bench', queries);
    const recall = recallAtK(exact, modes.vector.hitLists);
    delete modes.vector.hitLists;

    return { ingest: ingestRates(documents.length, ackSeconds, indexedSeconds), modes, rss, resident, recall, disk };
  } finally {
    client.close();
    await server.stop();
  }
}

/** Stops the server (graceful: the vector graph is written) and returns its data dir's size. */
async function stopAndMeasure(server, client) {
  client.close();
  await server.stop();
  return dirSize(server.dataDir);
}
