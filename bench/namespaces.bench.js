// Memory per namespace (npm run bench:namespaces): one index of the embedded engine, one small
// document in each of BENCH_NAMESPACES namespaces (default 1000), each searched once so its
// full-text index and vector graphs are loaded, then the process's RSS growth per namespace.
// An index may hold thousands of namespaces, each with a vector graph per worker thread; before
// 16 label locks per graph (scripts/build-native.mjs) and a 64-vector first capacity, each one
// cost 5.5 MB with two workers. Prints numbers; it is not a timed test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbeddedEngine, createEmbedder } from '../dist/engine/index.js';

const NAMESPACES = Number(process.env.BENCH_NAMESPACES ?? 1000);
const WORKERS = Number(process.env.BENCH_VECTOR_WORKERS ?? 2);
const rssMb = () => Number(fs.readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\s+(\d+)/)[1]) / 1024;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'namespaces-bench-'));
const engine = createEmbeddedEngine({
  dataDir,
  embedder: createEmbedder({ provider: 'builtin' }),
  vectorWorkers: WORKERS,
});
try {
  const index = await engine.open('bench');
  await index.upsert('warm-up', [{ id: 'w', content: { t: 'warm up' } }], { maxVectorCount: -1 });
  const before = rssMb();
  for (let i = 0; i < NAMESPACES; i++) {
    await index.upsert(`ns-${i}`, [{ id: 'd', content: { t: `hello world ${i}` } }], { maxVectorCount: -1 });
    await index.search(`ns-${i}`, {
      query: 'hello',
      topK: 10,
      includeData: false,
      includeMetadata: false,
      semanticWeight: 0.75,
      reranking: false,
      inputEnrichment: false,
      keepOriginalQuery: false,
    });
  }
  while ((await index.info()).pendingVectorCount > 0) await new Promise((resolve) => setTimeout(resolve, 100));
  const after = rssMb();
  console.log(
    `namespaces bench: ${NAMESPACES} namespaces of one document, ${WORKERS} vector worker(s), node ${process.version}`,
  );
  console.log(
    `RSS ${before.toFixed(0)} MB → ${after.toFixed(0)} MB: ${((1024 * (after - before)) / NAMESPACES).toFixed(0)} KB per namespace`,
  );
} finally {
  await engine.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
