// Benchmark of the per-index data plane, end to end: the official @upstash/search SDK over HTTP
// against the real app (buildApp from dist/, embedded engine, builtin embedder), in this process.
// Run: npm run bench:data   (= npm run build && node --expose-gc bench/data-plane.bench.js)
// Env: BENCH_DOCS (default 100000), BENCH_BATCH (100), BENCH_CONCURRENCY (4 upserts in flight),
//      BENCH_QUERIES (300 per mode), BENCH_RECALL_QUERIES (100), BENCH_LOAD_SECONDS (5; 0 skips autocannon).
// Numbers are printed, not asserted. Client and server share this process (and its event loop),
// so latencies include the SDK's own work: they are an upper bound for a separate client.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Search } from '@upstash/search';
import autocannon from 'autocannon';
import { buildApp } from '../dist/app.js';
import { loadConfig } from '../dist/config.js';
import { createEmbedder } from '../dist/engine/index.js';
import { flattenText } from '../dist/engine/text-tokens.js';
import { migrateToLatest, openStore } from '../dist/store/database.js';

const DOCS = Number(process.env.BENCH_DOCS ?? 100_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 300);
const RECALL_QUERIES = Number(process.env.BENCH_RECALL_QUERIES ?? 100);
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 5);
const TARGETS = { upsertDocsPerSecond: 5000, hybridP50Ms: 10, recallAt10: 0.95 };

// ---------------------------------------------------------------------------------------------
// Generated documents: English-like pseudo-words, Zipf-skewed, deterministic. Like real text, each
// document is about one of TOPICS topics: most of its words come from that topic's vocabulary,
// the rest from the whole language. (Uniformly random text, with no topics at all, is the
// worst case for an ANN index; set BENCH_TOPIC_SHARE=0 to measure that instead.)
const TOPICS = 300;
const TOPIC_SHARE = Number(process.env.BENCH_TOPIC_SHARE ?? 0.6);
let seed = 20260522;
function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (items) => items[Math.floor(random() * items.length)];
const ONSETS = [
  'b',
  'c',
  'd',
  'f',
  'g',
  'h',
  'l',
  'm',
  'n',
  'p',
  'r',
  's',
  't',
  'v',
  'br',
  'st',
  'tr',
  'pl',
  'gr',
  'sh',
];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ea', 'ou', 'ai'];
const CODAS = ['', 'n', 'r', 's', 't', 'l', 'nd', 'st', 'ck', 'ng'];
const syllable = () => pick(ONSETS) + pick(VOWELS) + pick(CODAS);
const VOCABULARY = [
  ...new Set(
    Array.from({ length: 12_000 }, () => Array.from({ length: 1 + Math.floor(random() * 3) }, syllable).join('')),
  ),
].slice(0, 8000);
const zipfIn = (list) => list[Math.min(list.length - 1, Math.floor(list.length * random() ** 2.5))];
const TOPIC_WORDS = Array.from({ length: TOPICS }, () => Array.from({ length: 60 }, () => pick(VOCABULARY)));
const word = (topic) => (random() < TOPIC_SHARE ? zipfIn(TOPIC_WORDS[topic]) : zipfIn(VOCABULARY));
const words = (topic, min, max) =>
  Array.from({ length: min + Math.floor(random() * (max - min + 1)) }, () => word(topic)).join(' ');
const GENRES = ['fiction', 'science', 'history', 'travel', 'cooking', 'poetry', 'business', 'health', 'art', 'sports'];

function makeDoc(i) {
  const topic = Math.floor(random() * TOPICS);
  return {
    id: `doc-${String(i).padStart(7, '0')}`,
    content: {
      title: words(topic, 3, 8),
      body: words(topic, 25, 60),
      genre: GENRES[i % GENRES.length],
      year: 1950 + (i % 75),
    },
    metadata: { shelf: `s${i % 40}`, stock: i % 17, topic },
  };
}
/** A user query: two or three words of one topic, sometimes with a word from elsewhere. */
const makeQuery = () => {
  const topic = Math.floor(random() * TOPICS);
  return Array.from({ length: 2 + Math.floor(random() * 2) }, () => word(topic)).join(' ');
};

// ---------------------------------------------------------------------------------------------
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
function rss() {
  globalThis.gc?.();
  return mb(process.memoryUsage().rss);
}
const verdict = (ok) => (ok ? 'meets target' : 'MISSES target');

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'searchplane-data-bench-'));
const config = loadConfig({ dataDir }, { LOG_LEVEL: 'silent' });
const store = openStore({ dataDir });
await migrateToLatest(store);
const app = await buildApp({ config, store, logger: false });
const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });

const { email } = { email: 'bench@example.com' };
await app.services.accounts.create(email);
const record = await app.services.indexes.create(email, { name: 'bench', region: 'eu-west-1', type: 'payg' });
// Quotas off: this measures the engine and the HTTP path, not the rate limiter.
await store.db
  .updateTable('search_indexes')
  .set({
    max_vector_count: -1,
    max_writes_per_second: -1,
    max_query_per_second: -1,
    max_daily_queries: -1,
    max_daily_updates: -1,
    max_monthly_bandwidth: -1,
    max_reads_per_request: -1,
    max_writes_per_request: -1,
  })
  .where('id', '=', record.id)
  .execute();
const client = new Search({
  url: `${baseUrl}/indexes/${record.endpoint}`,
  token: record.token,
  enableTelemetry: false,
});
const books = client.index('books');

console.log(
  `data-plane bench: ${DOCS} docs (${TOPICS} topics, topic share ${TOPIC_SHARE}), batches of ${BATCH}, ${CONCURRENCY} upserts in flight, ${QUERIES} queries per mode, ` +
    `node ${process.version}, ${os.cpus().length} cpus, builtin embedder; rss at start ${rss()}`,
);

// 1. Acknowledged upserts through the SDK.
const docs = Array.from({ length: DOCS }, (_, i) => makeDoc(i));
const batches = [];
for (let start = 0; start < DOCS; start += BATCH) batches.push(docs.slice(start, start + BATCH));
let nextBatch = 0;
let acknowledged = 0;
let checkpoint = performance.now();
let checkpointDocs = 0;
const upsertStart = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (nextBatch < batches.length) {
      const batch = batches[nextBatch++];
      await books.upsert(batch);
      acknowledged += batch.length;
      if (acknowledged - checkpointDocs >= 25_000) {
        const now = performance.now();
        console.log(
          `  acknowledged ${acknowledged}: ${((acknowledged - checkpointDocs) / ((now - checkpoint) / 1000)).toFixed(0)} docs/s over the last ${acknowledged - checkpointDocs}, rss ${mb(process.memoryUsage().rss)}`,
        );
        checkpoint = now;
        checkpointDocs = acknowledged;
      }
    }
  }),
);
const upsertSeconds = (performance.now() - upsertStart) / 1000;
const upsertRate = DOCS / upsertSeconds;
console.log(
  `upsert: ${DOCS} docs acknowledged in ${upsertSeconds.toFixed(1)} s = ${upsertRate.toFixed(0)} docs/s ` +
    `(target ≥ ${TARGETS.upsertDocsPerSecond}: ${verdict(upsertRate >= TARGETS.upsertDocsPerSecond)})`,
);

// 2. Time until everything is in the vector index.
let info = await client.info();
console.log(`pendingDocumentCount right after the last acknowledged upsert: ${info.pendingDocumentCount}`);
// BENCH_BACKLOG_SEARCHES=<ms>: while the backlog drains, one hybrid search every <ms> (paced, so
// the measurement itself does not saturate the event loop), instead of idling.
const backlogPace = Number(process.env.BENCH_BACKLOG_SEARCHES ?? 0);
const backlogTimes = [];
let lastInfo = performance.now();
while (info.pendingDocumentCount > 0) {
  if (backlogPace > 0) {
    // Queries from document titles: the seeded random() stays untouched for the measurements below.
    const title = docs[(backlogTimes.length * 7919) % DOCS].content.title;
    const start = performance.now();
    await books.search({ query: title.split(' ').slice(0, 3).join(' '), limit: 10, inputEnrichment: false });
    backlogTimes.push(performance.now() - start);
    await new Promise((resolve) => setTimeout(resolve, backlogPace));
    if (performance.now() - lastInfo < 100) continue;
    lastInfo = performance.now();
  } else {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  info = await client.info();
}
if (backlogTimes.length > 0) {
  backlogTimes.sort((a, b) => a - b);
  console.log(
    `hybrid searches during the indexing backlog: ${backlogTimes.length}, p50 ${percentile(backlogTimes, 50).toFixed(2)} ms, p99 ${percentile(backlogTimes, 99).toFixed(2)} ms`,
  );
}
const indexedSeconds = (performance.now() - upsertStart) / 1000;
console.log(
  `pendingVectorCount reached 0 ${(indexedSeconds - upsertSeconds).toFixed(1)} s after the last upsert ` +
    `(${indexedSeconds.toFixed(1)} s after the first); documents ${info.documentCount}, disk ${mb(info.diskSize)}, rss ${rss()}`,
);

// 3. Search latency at DOCS documents, sequential requests through the SDK.
const queries = Array.from({ length: QUERIES }, makeQuery);
const results = {};
async function timeSearches(label, makeParams) {
  const times = [];
  let hits = 0;
  for (const query of queries) {
    const start = performance.now();
    const found = await books.search(makeParams(query));
    times.push(performance.now() - start);
    hits += found.length;
  }
  times.sort((a, b) => a - b);
  results[label] = { p50: percentile(times, 50), p99: percentile(times, 99) };
  console.log(
    `${label.padEnd(52)} p50 ${percentile(times, 50).toFixed(2).padStart(6)} ms  p99 ${percentile(times, 99).toFixed(2).padStart(7)} ms  avg hits ${(hits / queries.length).toFixed(1)}`,
  );
}
const base = (query) => ({ query, limit: 10, inputEnrichment: false });
await timeSearches('warm-up', base);
await timeSearches('full-text (semanticWeight 0)', (q) => ({ ...base(q), semanticWeight: 0 }));
await timeSearches('vector (semanticWeight 1)', (q) => ({ ...base(q), semanticWeight: 1 }));
await timeSearches('hybrid (semanticWeight 0.75)', base);
await timeSearches("hybrid, filtered 10%: genre = 'history'", (q) => ({
  ...base(q),
  filter: { genre: { equals: 'history' } },
}));
await timeSearches('hybrid, filtered 1%: genre + year range', (q) => ({
  ...base(q),
  filter: { AND: [{ genre: { equals: 'history' } }, { year: { greaterThanOrEquals: 2015 } }] },
}));
await timeSearches('hybrid, SDK defaults (input enrichment on)', (q) => ({ query: q, limit: 10 }));
await timeSearches('hybrid + reranking', (q) => ({ ...base(q), reranking: true }));
const hybrid = results['hybrid (semanticWeight 0.75)'];
console.log(`hybrid p50 target ≤ ${TARGETS.hybridP50Ms} ms: ${verdict(hybrid.p50 <= TARGETS.hybridP50Ms)}`);

// 4. Recall@10 of the ANN index: the vector-only path against exact search over the same embeddings.
const embedder = createEmbedder({ provider: 'builtin', dimensions: config.embeddings.dimensions });
const unit = (vector) => {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  return vector.map((x) => x / norm);
};
const corpus = [];
for (let start = 0; start < DOCS; start += 5000) {
  const texts = docs.slice(start, start + 5000).map((doc) => flattenText(doc.content));
  for (const vector of await embedder.embed(texts)) corpus.push(unit(vector));
}
let overlap = 0;
const recallSet = queries.slice(0, RECALL_QUERIES);
for (const query of recallSet) {
  const [q] = (await embedder.embed([query])).map(unit);
  const top = [];
  for (let i = 0; i < corpus.length; i++) {
    const v = corpus[i];
    let dot = 0;
    for (let d = 0; d < q.length; d++) dot += q[d] * v[d];
    if (top.length < 10 || dot > top[top.length - 1][1]) {
      top.push([i, dot]);
      top.sort((a, b) => b[1] - a[1]);
      if (top.length > 10) top.pop();
    }
  }
  const exact = new Set(top.map(([i]) => docs[i].id));
  const found = await books.search({ query, limit: 10, semanticWeight: 1, inputEnrichment: false });
  overlap += found.filter((hit) => exact.has(hit.id)).length;
}
corpus.length = 0;
const recall = overlap / (recallSet.length * 10);
console.log(
  `recall@10 (vector path vs exact search, ${recallSet.length} queries): ${recall.toFixed(3)} ` +
    `(target ≥ ${TARGETS.recallAt10}: ${verdict(recall >= TARGETS.recallAt10)})`,
);

// 5. Throughput under concurrent load (autocannon, raw REST, keep-alive).
if (LOAD_SECONDS > 0) {
  const load = await autocannon({
    url: `${baseUrl}/indexes/${record.endpoint}/search/books`,
    method: 'POST',
    connections: 8,
    duration: LOAD_SECONDS,
    headers: { authorization: `Bearer ${record.token}`, 'content-type': 'application/json' },
    requests: queries.slice(0, 50).map((query) => ({
      body: JSON.stringify({ query, topK: 10, includeData: true, includeMetadata: true, inputEnrichment: false }),
    })),
  });
  console.log(
    `hybrid search under load (8 connections, ${LOAD_SECONDS} s): ${load.requests.average.toFixed(0)} req/s, ` +
      `latency p50 ${load.latency.p50} ms, p99 ${load.latency.p99} ms, non-2xx ${load.non2xx}`,
  );
}

console.log(`rss at the end (after gc): ${rss()}`);
const closeStart = performance.now();
await app.close();
await store.close();
console.log(`shutdown (usage flush + HNSW written): ${((performance.now() - closeStart) / 1000).toFixed(2)} s`);
fs.rmSync(dataDir, { recursive: true, force: true });
