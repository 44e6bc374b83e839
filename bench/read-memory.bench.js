// Memory under concurrent large reads (npm run bench:read-memory): searchplane as `npm start` runs
// it, one index holding BENCH_DOCS documents (1000) with BENCH_METADATA_KB of metadata each (47),
// then BENCH_CLIENTS (30) clients asking at once for the whole namespace as one range page with
// metadata, each reading its answer at full speed. Prints the answers by status, how long they took
// and the server's peak RSS (sampled every 20 ms, and the kernel's high-water mark). Every page is
// within the documented limits; without the read budget (SEARCHPLANE_READ_BUFFER_MB) the default run
// took the node from 228 MB to 3.1 GB. Prints numbers; it is not a timed test.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MALLOC_TUNING } from '../dist/malloc-tuning.js';
import { requestJson, spawnServer } from './lib/bench-processes.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const DOCS = Number(process.env.BENCH_DOCS ?? 1000);
const METADATA_BYTES = Number(process.env.BENCH_METADATA_KB ?? 47) * 1000;
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 30);
const email = 'bench@example.com';
const apiKey = 'bench-api-key-0123456789abcdef';
const authorization = `Basic ${Buffer.from(`${email}:${apiKey}`).toString('base64')}`;

const workDir = mkdtempSync(path.join(os.tmpdir(), 'searchplane-read-memory-'));
const server = await spawnServer({
  args: [path.join(root, 'bin/searchplane.js'), 'serve', '--port', '0', '--data-dir', path.join(workDir, 'data')],
  // SEARCHPLANE_READ_BUFFER_MB passes through from the environment, to compare budgets.
  env: { ...MALLOC_TUNING, LOG_LEVEL: 'warn', SEARCHPLANE_ADMIN_EMAIL: email, SEARCHPLANE_ADMIN_API_KEY: apiKey },
  logFile: path.join(workDir, 'searchplane.log'),
});
try {
  const memoryMb = (field) =>
    Number(readFileSync(`/proc/${server.pid}/status`, 'utf8').match(new RegExp(`${field}:\\s+(\\d+)`))[1]) / 1024;
  const index = await requestJson(`${server.url}/v2/search`, {
    method: 'POST',
    headers: { authorization },
    body: { name: 'read-memory', region: 'us-central1', type: 'payg' },
  });
  const call = (route, body) =>
    fetch(`${server.url}/indexes/${index.endpoint}/${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${index.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  // Batches under the 1 MB body limit.
  const perUpsert = Math.max(1, Math.floor(900_000 / METADATA_BYTES));
  for (let first = 0; first < DOCS; first += perUpsert) {
    const docs = Array.from({ length: Math.min(perUpsert, DOCS - first) }, (_, i) => ({
      id: `doc-${first + i}`,
      content: { text: `document ${first + i}` },
      metadata: { blob: 'y'.repeat(METADATA_BYTES) },
    }));
    const response = await call('upsert-data/pages', docs);
    if (!response.ok) throw new Error(`upsert failed: ${response.status} ${await response.text()}`);
  }
  const loaded = memoryMb('VmRSS');

  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, memoryMb('VmRSS'));
  }, 20);
  const statuses = {};
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const response = await call('range/pages', { cursor: '', limit: DOCS, includeMetadata: true });
      await response.arrayBuffer();
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);

  const pageMb = (DOCS * METADATA_BYTES) / 1e6;
  console.log(
    `\nsearchplane read memory: Node ${process.version}, ${os.cpus().length} CPUs, ` +
      `SEARCHPLANE_READ_BUFFER_MB ${process.env.SEARCHPLANE_READ_BUFFER_MB ?? '256 (default)'}`,
  );
  console.log(`${DOCS} documents with ${METADATA_BYTES / 1000} KB of metadata each; ${CLIENTS} clients at once, each`);
  console.log(`asking for all of them as one range page with metadata (${pageMb.toFixed(0)} MB)\n`);
  console.log(
    `answers:       ${Object.entries(statuses)
      .map(([status, count]) => `${count} × ${status}`)
      .join(', ')} in ${seconds.toFixed(1)} s`,
  );
  console.log(`RSS loaded:    ${loaded.toFixed(0)} MB`);
  console.log(
    `RSS peak:      ${Math.max(peak, memoryMb('VmHWM')).toFixed(0)} MB (kernel high-water mark and 20 ms samples)`,
  );
} finally {
  await server.stop();
  rmSync(workDir, { recursive: true, force: true });
}
