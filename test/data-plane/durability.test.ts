import { expect, test } from 'vitest';
import { api } from '../blackbox/support/http-client.js';
import { useStoreTarget } from '../blackbox/support/lifecycle.js';
import { type ServerProcess, startServer } from '../blackbox/support/searchplane-process.js';
import { sdkClient } from '../helpers/data-plane.js';

/**
 * Black-box durability of index data: the real CLI (`searchplane serve`, built into dist/ by
 * `npm test`) restarted gracefully, and killed with SIGKILL in the middle of writes.
 */
const target = useStoreTarget();

const auth = { email: 'durable@example.com', apiKey: 'durable-key-0123456789abcdef' };
const env = { SEARCHPLANE_ADMIN_EMAIL: auth.email, SEARCHPLANE_ADMIN_API_KEY: auth.apiKey };

async function createIndex(server: ServerProcess, name: string) {
  const created = await api(server.url, 'POST', '/v2/search', {
    auth,
    body: { name, region: 'eu-west-1', type: 'payg' },
  });
  expect(created.status).toBe(200);
  return created.body as { id: string; endpoint: string; token: string; read_only_token: string };
}

/** Polls info until every document is in the vector index (a bounded wait, not a sleep). */
async function waitUntilIndexed(server: ServerProcess, endpoint: string, token: string, timeoutMs = 20_000) {
  const client = sdkClient(server.url, endpoint, token);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await client.info();
    if (info.pendingDocumentCount === 0) return info;
    if (Date.now() > deadline) throw new Error(`still ${info.pendingDocumentCount} pending after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const doc = (i: number) => ({
  id: `doc-${String(i).padStart(5, '0')}`,
  content: { title: `Title ${i}`, text: `searchable words number ${i} ${i % 2 === 0 ? 'even' : 'odd'}` },
  metadata: { i },
});

test('documents, namespaces, tokens and usage survive a graceful restart', async () => {
  const first = await startServer(target.args, env);
  const index = await createIndex(first, 'persistent');
  const client = sdkClient(first.url, index.endpoint, index.token);
  await client.index('books').upsert(Array.from({ length: 50 }, (_, i) => doc(i)));
  await client.index('films').upsert([{ id: 'f1', content: { title: 'Alien' } }]);
  await client.index('books').delete(['doc-00000', 'doc-00001']);
  const before = {
    info: await waitUntilIndexed(first, index.endpoint, index.token),
    books: await client.index('books').range({ cursor: '', limit: 100 }),
    search: await client.index('books').search({ query: 'number 7', limit: 3, semanticWeight: 0.5 }),
  };
  expect(before.info.indexes.books.documentCount).toBe(48);
  expect(await first.stop()).toBe(0);

  const second = await startServer(target.args, env);
  const again = sdkClient(second.url, index.endpoint, index.token);
  // Counts are identical; the size on disk may shrink once the write-ahead log is checkpointed.
  const { diskSize, ...counts } = await waitUntilIndexed(second, index.endpoint, index.token);
  expect({ ...counts, diskSize: before.info.diskSize }).toEqual(before.info);
  expect(diskSize).toBeGreaterThan(0);
  expect(await again.index('books').range({ cursor: '', limit: 100 })).toEqual(before.books);
  expect(await again.index('books').search({ query: 'number 7', limit: 3, semanticWeight: 0.5 })).toEqual(
    before.search,
  );
  expect(await again.index('films').fetch(['f1'])).toEqual([{ id: 'f1', content: { title: 'Alien' } }]);
  expect((await again.listIndexes()).sort()).toEqual(['', 'books', 'films']);
  const readOnly = sdkClient(second.url, index.endpoint, index.read_only_token);
  expect(await readOnly.index('books').fetch(['doc-00002'])).toHaveLength(1);

  const stats = await api(second.url, 'GET', `/v2/search/${index.id}/stats`, { auth });
  expect(stats.status).toBe(200);
  expect(stats.body.current_vector_count).toBe(49);
  expect(stats.body.daily_update_count).toBe(3);
});

/** Kill -9 cycles of the crash test; more with CRASH_CYCLES (e.g. 20 before a release). */
const CRASH_CYCLES = Number(process.env.CRASH_CYCLES ?? 3);

test(`kill -9 during writes, ${CRASH_CYCLES} times in a row: every acknowledged upsert is present after each restart`, async () => {
  let server = await startServer(target.args, env);
  const index = await createIndex(server, 'crashy');
  const acknowledged: string[] = [];
  const BATCH = 20;
  let next = 0;

  for (let cycle = 0; cycle < CRASH_CYCLES; cycle++) {
    const books = sdkClient(server.url, index.endpoint, index.token).index('books');
    const before = acknowledged.length;
    let killed = false;
    // Four writers upsert batches until the process dies under them.
    const writer = async () => {
      while (!killed) {
        const docs = Array.from({ length: BATCH }, () => doc(next++));
        try {
          await books.upsert(docs);
          acknowledged.push(...docs.map((d) => d.id));
        } catch {
          return; // the connection died with the process: not acknowledged
        }
      }
    };
    const writers = Array.from({ length: 4 }, writer);
    while (acknowledged.length < before + 20 * BATCH) await new Promise((resolve) => setImmediate(resolve));
    killed = true;
    await server.stop('SIGKILL');
    await Promise.all(writers);

    server = await startServer(target.args, env);
    const after = sdkClient(server.url, index.endpoint, index.token).index('books');
    for (let i = 0; i < acknowledged.length; i += 500) {
      const ids = acknowledged.slice(i, i + 500);
      const found = await after.fetch(ids);
      const missing = ids.filter((_, j) => found[j] === null);
      expect(missing, `after kill ${cycle + 1}`).toEqual([]);
    }
  }

  const info = await waitUntilIndexed(server, index.endpoint, index.token);
  expect(info.documentCount).toBeGreaterThanOrEqual(acknowledged.length);
  // The vector side was rebuilt too: a purely semantic search finds an acknowledged document.
  const probe = doc(Number(acknowledged[0].slice(4)));
  const books = sdkClient(server.url, index.endpoint, index.token).index('books');
  const hits = await books.search({ query: probe.content.text, limit: 5, semanticWeight: 1 });
  expect(hits.map((hit) => hit.id)).toContain(probe.id);
}, 120_000);
