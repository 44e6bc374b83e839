// Part "load": on an index of `loadDocs` documents, the latency of upserting 10
// documents per request, alone and while `searchers` concurrent clients (a separate process) send
// the default search request continuously; the ratio of the two p50s and the search QPS meanwhile.
import { latencySummary, sleep, timeEach } from './bench-stats.js';
import { jsonClient } from './http-json.js';
import { buildDocuments } from './scifact-corpus.js';
import { createIndex, SEARCH_MODES, startSearchplane, toUpsert } from './searchplane-node.js';
import { ingest, searchThroughput, startLoad, timeSearches, waitIndexed } from './searchplane-ops.js';

const PER_REQUEST = 10;

/** Resolves to `{ documents, unloaded, loaded, ratio, searchQpsAlone, searchQpsDuringWrites, ... }`. */
export async function runWriteLoadPart({ workDir, scifact, queries, settings, progress }) {
  const { loadDocs, loadUpserts, searchers, qpsSeconds } = settings;
  // The first `loadDocs` are the index; the rest are new documents for the measured upserts.
  const all = buildDocuments(scifact, loadDocs + 2 * loadUpserts * PER_REQUEST);
  const server = await startSearchplane({ workDir, name: 'searchplane-load' });
  const index = await createIndex(server, 'load');
  const client = jsonClient(index.dataUrl, index.token);
  try {
    await ingest(client, all.slice(0, loadDocs), { batch: settings.batch, inFlight: settings.inFlight });
    await waitIndexed(client);
    progress(`${loadDocs} documents indexed; ${loadUpserts} upserts of ${PER_REQUEST} alone`);
    const requests = [];
    for (let at = loadDocs; at < all.length; at += PER_REQUEST) requests.push(all.slice(at, at + PER_REQUEST));
    const upsert = (docs) => client.post('/upsert-data/bench', docs.map(toUpsert));
    const unloaded = latencySummary(await timeEach(requests.slice(0, loadUpserts), upsert));
    await waitIndexed(client);

    const body = SEARCH_MODES.default;
    await timeSearches(client, queries.slice(0, settings.warmup), body);
    const alone = await searchThroughput(index, queries, body, { clients: searchers, seconds: qpsSeconds });
    progress(`${searchers} searchers alone: ${alone.qps.toFixed(1)} QPS; now upserting under their load`);
    const load = startLoad({ ...index, path: '/search/bench', bodies: queries.map(body), clients: searchers });
    await load.ready;
    await sleep(1000); // let every searcher have a request in flight before measuring
    const loaded = latencySummary(await timeEach(requests.slice(loadUpserts), upsert));
    load.send('stop');
    const during = await load.result;
    return {
      documents: loadDocs,
      perRequest: PER_REQUEST,
      upserts: loadUpserts,
      searchers,
      unloaded,
      loaded,
      ratio: loaded.p50 / unloaded.p50,
      searchQpsAlone: alone.qps,
      searchQpsDuringWrites: during.qps,
      searchP50DuringWrites: during.p50,
      searchErrors: alone.errors + during.errors,
    };
  } finally {
    client.close();
    await server.stop();
  }
}
