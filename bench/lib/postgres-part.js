// Part "postgres": two server processes with their own data dirs on one PostgreSQL
// schema (created here, dropped at the end). The corpus is upserted through node A; node B serves
// the searches; then a fresh node C (empty data dir) is timed until it answers a search exactly as
// B does ("ready") and until its vectors are indexed.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { rssOf, sleep } from './bench-stats.js';
import { jsonClient } from './http-json.js';
import { createIndex, dataUrlOn, SEARCH_MODES, startSearchplane } from './searchplane-node.js';
import { ingest, searchThroughput, timeSearches, waitIndexed } from './searchplane-ops.js';

/** A fresh node that has not answered like B by then is reported as a failure, not waited for forever. */
const READY_TIMEOUT_SECONDS = 900;

async function adminQuery(baseUrl, text) {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(text);
  } finally {
    await admin.end();
  }
}

/**
 * Runs the part on `total` documents (`documents()` iterates them); resolves to `{ documents,
 * ingest, modes: {fullText, default}, ready: {listenSeconds, firstSearchSeconds, indexedSeconds,
 * peakRss} }` (`peakRss`: node C's highest RSS, sampled while it caught up).
 */
export async function runPostgresPart({ workDir, databaseUrl, documents, total, queries, settings, progress }) {
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  await adminQuery(databaseUrl, `CREATE SCHEMA ${schema}`);
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const servers = [];
  const clients = [];
  let sampler;
  const open = (server, index) => {
    const client = jsonClient(dataUrlOn(server, index), index.token);
    clients.push(client);
    return client;
  };
  try {
    const nodeA = await startSearchplane({ workDir, name: 'pg-node-a', databaseUrl: url.toString() });
    servers.push(nodeA);
    const nodeB = await startSearchplane({ workDir, name: 'pg-node-b', databaseUrl: url.toString() });
    servers.push(nodeB);
    const index = await createIndex(nodeA, 'bench');
    const onA = open(nodeA, index);
    progress(`schema ${schema}; upserting ${total} documents through node A`);
    const ackSeconds = await ingest(onA, documents(), { batch: settings.batch, inFlight: settings.inFlight, progress });
    progress(`acknowledged in ${ackSeconds.toFixed(1)} s; node B catching up`);
    const onB = open(nodeB, index);
    const catchUp = performance.now();
    await onB.post('/search/bench', SEARCH_MODES.fullText(queries[0]));
    await waitIndexed(onB);
    progress(`node B caught up and indexed in ${((performance.now() - catchUp) / 1000).toFixed(1)} s`);

    const bIndex = { dataUrl: dataUrlOn(nodeB, index), token: index.token };
    await timeSearches(onB, queries.slice(0, settings.warmup), SEARCH_MODES.default);
    const modes = {};
    for (const mode of ['fullText', 'default']) {
      const { hits, ...latency } = await timeSearches(onB, queries, SEARCH_MODES[mode]);
      const load = await searchThroughput(bIndex, queries, SEARCH_MODES[mode], {
        clients: settings.clients,
        seconds: settings.qpsSeconds,
      });
      modes[mode] = { ...latency, qps: load.qps };
      progress(`node B ${mode}: p50 ${latency.p50.toFixed(2)} ms, ${load.qps.toFixed(1)} QPS`);
    }

    const expected = await onB.post('/search/bench', SEARCH_MODES.fullText(queries[1]));
    const nodeC = await startSearchplane({ workDir, name: 'pg-node-c', databaseUrl: url.toString() });
    servers.push(nodeC);
    const listenSeconds = (performance.now() - nodeC.startedAt) / 1000;
    const onC = open(nodeC, index);
    let peakRss = rssOf(nodeC.pid) ?? 0;
    sampler = setInterval(() => {
      peakRss = Math.max(peakRss, rssOf(nodeC.pid) ?? 0);
    }, 250);
    const ids = (hits) => hits.map((hit) => hit.id).join(',');
    let firstSearchSeconds;
    for (;;) {
      const found = await onC.post('/search/bench', SEARCH_MODES.fullText(queries[1]));
      const elapsed = (performance.now() - nodeC.startedAt) / 1000;
      if (ids(found) === ids(expected)) {
        firstSearchSeconds = elapsed;
        break;
      }
      if (elapsed > READY_TIMEOUT_SECONDS)
        throw new Error(`node C still answers differently from B after ${elapsed} s`);
      await sleep(100);
    }
    await waitIndexed(onC);
    clearInterval(sampler);
    const indexedSeconds = (performance.now() - nodeC.startedAt) / 1000;
    progress(
      `fresh node C: listening ${listenSeconds.toFixed(1)} s, correct first search ${firstSearchSeconds.toFixed(1)} s, vectors ${indexedSeconds.toFixed(1)} s`,
    );
    return {
      documents: total,
      ingest: { ackSeconds, ackDocsPerSecond: total / ackSeconds },
      modes,
      ready: { listenSeconds, firstSearchSeconds, indexedSeconds, peakRss },
    };
  } finally {
    clearInterval(sampler);
    for (const client of clients) client.close();
    for (const server of servers) await server.stop();
    await adminQuery(databaseUrl, `DROP SCHEMA ${schema} CASCADE`);
  }
}
