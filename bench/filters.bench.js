// Memory under distinct filters (npm run bench:filters): searchplane as `npm start` runs it, one
// index of BENCH_FILTER_DOCS (50) documents searched by 4 clients with BENCH_FILTERS (20000)
// filters of distinct shapes (each compiles to SQL of its own, so each is a prepared statement
// evicted from the cache later), printing the server's RSS after the first BENCH_FILTERS_FIRST
// (2000) and along the rest. A bounded cache keeps the two within a few MB whatever the count.
// Prints numbers; it is not a timed test.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { requestJson } from './lib/bench-processes.js';
import { createIndex, startSearchplane } from './lib/searchplane-node.js';

const DOCS = Number(process.env.BENCH_FILTER_DOCS ?? 50);
const FILTERS = Number(process.env.BENCH_FILTERS ?? 20_000);
const FIRST = Number(process.env.BENCH_FILTERS_FIRST ?? 2000);
const CLIENTS = 4;

/** Filter `i`'s conditions follow the bits of i, so every filter compiles to SQL of its own. */
function distinctFilter(i) {
  const conditions = ["title != 'x'"];
  for (let bits = i + 1; bits > 0; bits >>= 1) conditions.push(bits & 1 ? '@metadata.n > 0' : "title GLOB 'a*'");
  return conditions.join(' AND ');
}

const workDir = mkdtempSync(path.join(os.tmpdir(), 'searchplane-filters-'));
const server = await startSearchplane({ workDir, name: 'filters' });
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))[1]) / 1024;
try {
  const index = await createIndex(server, 'filters');
  const headers = { authorization: `Bearer ${index.token}` };
  const docs = Array.from({ length: DOCS }, (_, i) => ({
    id: `d${i}`,
    content: { title: `a document number ${i}` },
    metadata: { n: i },
  }));
  await requestJson(`${index.dataUrl}/upsert-data/ns`, { method: 'POST', headers, body: docs });
  let next = 0;
  const searchUpTo = (to) =>
    Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < to) {
          const body = { query: 'document', topK: 3, filter: distinctFilter(next++) };
          await requestJson(`${index.dataUrl}/search/ns`, { method: 'POST', headers, body });
        }
      }),
    );
  await searchUpTo(FIRST);
  const first = rssMb();
  console.log(`filters bench: ${DOCS} documents, ${CLIENTS} clients, node ${process.version}`);
  console.log(`after ${FIRST} distinct filters: RSS ${first.toFixed(0)} MB`);
  const step = Math.max(1, Math.ceil((FILTERS - FIRST) / 4));
  for (let mark = FIRST + step; mark < FILTERS + step; mark += step) {
    await searchUpTo(Math.min(mark, FILTERS));
    console.log(`after ${Math.min(mark, FILTERS)} distinct filters: RSS ${rssMb().toFixed(0)} MB`);
  }
  console.log(`growth from ${FIRST} to ${FILTERS} filters: ${(rssMb() - first).toFixed(0)} MB`);
} finally {
  await server.stop();
  rmSync(workDir, { recursive: true, force: true });
}
