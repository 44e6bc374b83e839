// Benchmark of the embedded search engine (src/engine) on generated documents.
// Build first (npx tsc -p tsconfig.build.json), then: node bench/engine.bench.js
// Env: BENCH_DOCS (default 100000), BENCH_QUERIES (default 300), BENCH_BATCH (default 100),
//      BENCH_CORPUS = topical (default: documents and queries drawn from 300 topics) | random
//      (uniform bags of words: no structure, the worst case for approximate vector search).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { VectorGraph } from '../dist/engine/embedded/vector-graph-addon.js';
import { createEmbeddedEngine, createEmbedder } from '../dist/engine/index.js';

const DOCS = Number(process.env.BENCH_DOCS ?? 100_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 300);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const TOPICAL = (process.env.BENCH_CORPUS ?? 'topical') === 'topical';

// Deterministic PRNG (mulberry32) so runs are comparable.
let seed = 12345;
function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (items) => items[Math.floor(random() * items.length)];

// A 5,000-word vocabulary of pronounceable pseudo-words (consonant-vowel syllables, so character
// n-grams are about as diverse as in natural language), drawn with a Zipf-like skew.
const CONSONANTS = 'bcdfghjklmnprstvwz'.split('');
const SYLLABLES = CONSONANTS.flatMap((c) => [...'aeiou'].flatMap((v) => [c + v, c + v + pick(CONSONANTS)]));
const vocabulary = [
  ...new Set(
    Array.from({ length: 9000 }, () =>
      Array.from({ length: 2 + Math.floor(random() * 3) }, () => pick(SYLLABLES)).join(''),
    ),
  ),
].slice(0, 5000);
const zipfWord = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(vocabulary.length * random() ** 2.2))];
// A topic = 60 words; topical text takes 70% of its words from its topic, the rest from the whole vocabulary.
const topics = Array.from({ length: 300 }, () => Array.from({ length: 60 }, () => pick(vocabulary)));
const topicWord = (topic) =>
  TOPICAL && random() < 0.7 ? topic[Math.floor(topic.length * random() ** 1.5)] : zipfWord();
const words = (topic, min, max) =>
  Array.from({ length: min + Math.floor(random() * (max - min + 1)) }, () => topicWord(topic)).join(' ');
const makeQuery = () => {
  const topic = pick(topics);
  return `${topicWord(topic)} ${topicWord(topic)} ${TOPICAL ? pick(topic) : pick(vocabulary)}`;
};
const CATEGORIES = Array.from({ length: 20 }, (_, i) => `cat${i}`);

function makeDoc(i) {
  const topic = topics[i % topics.length];
  return {
    id: `doc-${String(i).padStart(7, '0')}`,
    content: {
      title: words(topic, 3, 8),
      body: words(topic, 20, 50),
      category: CATEGORIES[i % 20],
      price: Math.round(random() * 100000) / 100,
    },
    metadata: { tenant: `t${i % 50}`, rating: 1 + (i % 5), active: i % 3 !== 0 },
  };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const rss = () => mb(process.memoryUsage().rss);

async function timeQueries(label, index, queries, makeRequest) {
  const times = [];
  let hits = 0;
  for (const query of queries) {
    const start = performance.now();
    const result = await index.search('', makeRequest(query));
    times.push(performance.now() - start);
    hits += result.hits.length;
  }
  times.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(44)} p50 ${percentile(times, 50).toFixed(2).padStart(6)} ms  p99 ${percentile(times, 99).toFixed(2).padStart(6)} ms  avg hits ${(hits / queries.length).toFixed(1)}`,
  );
}

const request = (query, overrides = {}) => ({
  query,
  topK: 10,
  includeData: true,
  includeMetadata: true,
  semanticWeight: 0.75,
  reranking: false,
  inputEnrichment: false,
  keepOriginalQuery: false,
  ...overrides,
});

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-bench-'));
const embedder = createEmbedder({ provider: 'builtin' });
// One graph per namespace (one worker), so the bare graph below is the whole of it.
const engine = createEmbeddedEngine({ dataDir, embedder, vectorWorkers: 1 });
const index = await engine.open('bench');
console.log(
  `engine bench: ${DOCS} ${TOPICAL ? 'topical' : 'random'} docs, batches of ${BATCH}, ${QUERIES} queries per mode, node ${process.version}, ${os.cpus().length} cpus`,
);

// 1. Upserts
const docs = Array.from({ length: DOCS }, (_, i) => makeDoc(i));
const upsertStart = performance.now();
let checkpoint = upsertStart;
for (let start = 0; start < DOCS; start += BATCH) {
  await index.upsert('', docs.slice(start, start + BATCH), { maxVectorCount: -1 });
  // Let the background indexer run between batches, as it does between HTTP requests.
  await new Promise((resolve) => setImmediate(resolve));
  const done = start + BATCH;
  if (done % 25_000 === 0) {
    const now = performance.now();
    console.log(
      `  upserted ${done}: ${(25_000 / ((now - checkpoint) / 1000)).toFixed(0)} docs/s over the last 25k, rss ${rss()}`,
    );
    checkpoint = now;
  }
}
const upsertSeconds = (performance.now() - upsertStart) / 1000;
console.log(
  `upsert: ${DOCS} docs in ${upsertSeconds.toFixed(1)} s = ${(DOCS / upsertSeconds).toFixed(0)} docs/s (indexer running concurrently)`,
);
console.log(`pending right after the last upsert: ${(await index.info()).pendingVectorCount}`);

// 2. Searches while the indexer still has work (exact scan of the pending set + HNSW)
const queries = Array.from({ length: QUERIES }, makeQuery);
await timeQueries('hybrid w=0.75 during indexing', index, queries.slice(0, 30), (q) => request(q));

// 3. Indexing lag
let info = await index.info();
while (info.pendingVectorCount > 0) {
  await new Promise((resolve) => setTimeout(resolve, 200));
  info = await index.info();
}
const indexedSeconds = (performance.now() - upsertStart) / 1000;
console.log(
  `pendingVectorCount reached 0 ${(indexedSeconds - upsertSeconds).toFixed(1)} s after the last upsert (${indexedSeconds.toFixed(1)} s after the first), rss ${rss()}`,
);

// 4. Search latency
await timeQueries('warm-up', index, queries.slice(0, 20), (q) => request(q));
await timeQueries('hybrid w=0.75', index, queries, (q) => request(q));
await timeQueries('hybrid w=0.75 + input enrichment', index, queries, (q) => request(q, { inputEnrichment: true }));
await timeQueries('hybrid w=0.75, typo queries + enrichment', index, queries, (q) =>
  request(q.replace(/(\w)(\w)(\w*)$/, '$2$1$3'), { inputEnrichment: true }),
);
await timeQueries('full-text only (w=0)', index, queries, (q) => request(q, { semanticWeight: 0 }));
await timeQueries('vector only (w=1)', index, queries, (q) => request(q, { semanticWeight: 1 }));
await timeQueries("filtered 5%: category = 'cat3'", index, queries, (q) => request(q, { filter: "category = 'cat3'" }));
await timeQueries('filtered 0.2%: category + @metadata.tenant', index, queries, (q) =>
  request(q, { filter: "category = 'cat3' AND @metadata.tenant = 't23'" }),
);
await timeQueries('filtered 67%: @metadata.active = true', index, queries, (q) =>
  request(q, { filter: '@metadata.active = true' }),
);
await timeQueries('hybrid + reranking (window 50)', index, queries, (q) => request(q, { reranking: true }));
await timeQueries('hybrid topK=100', index, queries, (q) => request(q, { topK: 100 }));

// 5. Recall@10 against exact brute force over the same embeddings: end to end (vector-only
// search, whose candidates include full-text matches) here, and the bare HNSW graph after close.
const recallQueries = queries.slice(0, 100);
// The engine embeds every string field of the content, in order (title, body, category).
const texts = docs.map((doc) => `${doc.content.title}\n${doc.content.body}\n${doc.content.category}`);
const vectors = [];
for (let start = 0; start < texts.length; start += 5000)
  vectors.push(...(await embedder.embed(texts.slice(start, start + 5000))));
const queryVectors = await embedder.embed(recallQueries);
const exactTop10 = queryVectors.map((q) => {
  const scores = vectors.map((v, i) => {
    let dot = 0;
    for (let d = 0; d < q.length; d++) dot += q[d] * v[d];
    return [i, dot];
  });
  scores.sort((a, b) => b[1] - a[1]);
  return new Set(scores.slice(0, 10).map(([i]) => i));
});
let found = 0;
for (const [n, query] of recallQueries.entries()) {
  const { hits } = await index.search(
    '',
    request(query, { semanticWeight: 1, includeData: false, includeMetadata: false }),
  );
  found += hits.filter((hit) => exactTop10[n].has(Number(hit.id.slice(4)))).length;
}
console.log(`recall@10 vector-only search (w=1) vs brute force: ${(found / (recallQueries.length * 10)).toFixed(3)}`);

info = await index.info();
console.log(`index size on disk: ${mb(info.indexSize)}, rss ${rss()}`);
const closeStart = performance.now();
await engine.close();
console.log(`close (writes the HNSW file): ${((performance.now() - closeStart) / 1000).toFixed(2)} s`);
const graph = new VectorGraph(embedder.dimensions);
await graph.read(path.join(dataDir, 'indexes', 'bench', 'vectors-1.hnsw'));
for (const ef of [64, 128, 256, 512]) {
  let graphFound = 0;
  const start = performance.now();
  for (const [n, q] of queryVectors.entries()) {
    // Labels are SQLite rowids: document i has label i + 1 in this single-namespace run.
    const { labels } = graph.search(q, 10, ef);
    graphFound += [...labels].filter((label) => exactTop10[n].has(label - 1)).length;
  }
  const ms = (performance.now() - start) / queryVectors.length;
  console.log(
    `recall@10 bare HNSW graph, ef=${ef}: ${(graphFound / (queryVectors.length * 10)).toFixed(3)} (${ms.toFixed(2)} ms/query)`,
  );
}

const reopenStart = performance.now();
const engine2 = createEmbeddedEngine({ dataDir, embedder, vectorWorkers: 1 });
const reopened = await engine2.open('bench');
const reopenedInfo = await reopened.info();
console.log(
  `reopen + load HNSW: ${((performance.now() - reopenStart) / 1000).toFixed(2)} s, pending after reopen ${reopenedInfo.pendingVectorCount}`,
);
await engine2.close();
fs.rmSync(dataDir, { recursive: true, force: true });
