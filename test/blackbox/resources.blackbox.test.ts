import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { type ApiResponse, api } from './support/http-client.js';
import { useStoreTarget } from './support/lifecycle.js';
import { type ServerProcess, startServer } from './support/searchplane-process.js';

/**
 * Resources of the real server process stay bounded: file descriptors (indexes close when idle
 * beyond SEARCHPLANE_MAX_OPEN_INDEXES) and memory (compiled filters are cached within a bound).
 */
const target = useStoreTarget();
const auth = { email: 'resources@example.com', apiKey: 'resources-key-0123456789abcdef' };
const env = { SEARCHPLANE_ADMIN_EMAIL: auth.email, SEARCHPLANE_ADMIN_API_KEY: auth.apiKey, LOG_LEVEL: 'error' };

type Index = { id: string; endpoint: string; token: string };

async function createIndex(server: ServerProcess, name: string): Promise<Index> {
  const created = await api(server.url, 'POST', '/v2/search', {
    auth,
    body: { name, region: 'eu-west-1', type: 'payg' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body;
}

function call(server: ServerProcess, index: Index, route: string, body: unknown) {
  return api(server.url, 'POST', `/indexes/${index.endpoint}/${route}`, { bearer: index.token, body });
}

/** Runs `work` for every item, `parallel` at a time. */
async function inParallel<T>(items: T[], parallel: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

function residentBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error('no VmRSS in /proc status');
  return Number(match[1]) * 1024;
}

function descriptorLimit(pid: number): number {
  const limits = readFileSync(`/proc/${pid}/limits`, 'utf8');
  return Number(/Max open files\s+(\d+)/.exec(limits)?.[1]);
}

const INDEXES = 300;

test(`${INDEXES} indexes each written and searched, then account stats, under ulimit -n 320 (loading the modules at startup needs ~270 at once)`, async () => {
  // Each open index holds its connection's 3 descriptors and, after a write, up to one more per
  // text shard thread (see README, SEARCHPLANE_MAX_OPEN_INDEXES): 32 of them fit beside start-up's.
  const server = await startServer(target.args, { ...env, SEARCHPLANE_MAX_OPEN_INDEXES: '32' }, { openFiles: 320 });
  expect(descriptorLimit(server.pid)).toBe(320);
  const indexes: Index[] = [];
  for (let i = 0; i < INDEXES; i++) indexes.push(await createIndex(server, `many-${i}`));

  await inParallel(indexes, 4, async (index) => {
    const docs = [
      { id: 'a', content: { title: `alpha document of ${index.endpoint}` }, metadata: { n: 1 } },
      { id: 'b', content: { title: 'beta document' }, metadata: { n: 2 } },
    ];
    const upsert = await call(server, index, 'upsert-data/ns', docs);
    expect(upsert.status, JSON.stringify(upsert.body)).toBe(200);
    const search = await call(server, index, 'search/ns', { query: 'alpha', topK: 2, filter: '@metadata.n >= 1' });
    expect(search.status, JSON.stringify(search.body)).toBe(200);
    expect(search.body.result[0].id).toBe('a');
  });

  const stats = await api(server.url, 'GET', '/v2/search/stats', { auth });
  expect(stats.status, JSON.stringify(stats.body)).toBe(200);
  expect(stats.body.record_count).toBe(INDEXES * 2);
  // Every index reopens fine afterwards.
  for (const index of [indexes[0], indexes[INDEXES >> 1], indexes[INDEXES - 1]]) {
    expect((await call(server, index, 'info', [])).body.result.vectorCount).toBe(2);
  }
  expect(server.isRunning).toBe(true);
}, 240_000);

test('out of file descriptors, an index that cannot open answers 503 with Retry-After, never 500', async () => {
  // Nothing closes (a high cap), so every index written holds its database's descriptors until
  // the process has none left; requests ride one keep-alive connection opened before that.
  const server = await startServer(target.args, { ...env, SEARCHPLANE_MAX_OPEN_INDEXES: '1000' }, { openFiles: 320 });
  const answers: { status: number; code?: string; retryAfter: string | null }[] = [];
  const answered = (response: ApiResponse) => {
    answers.push({
      status: response.status,
      code: response.body?.code,
      retryAfter: response.headers.get('retry-after'),
    });
    return response.status === 200;
  };
  for (let i = 0; i < 200; i++) {
    // On PostgreSQL the store's pool may need a connection too: the create can be refused first.
    const created = await api(server.url, 'POST', '/v2/search', {
      auth,
      body: { name: `tight-${i}`, region: 'eu-west-1', type: 'payg' },
    });
    if (!answered(created)) break;
    const upsert = await call(server, created.body, 'upsert-data/ns', [{ id: 'a', content: { title: 'alpha' } }]);
    if (!answered(upsert)) break;
  }
  expect(answers.slice(0, 2).map((answer) => answer.status)).toEqual([200, 200]);
  expect(answers.at(-1)).toEqual({ status: 503, code: 'service_unavailable', retryAfter: '1' });
  expect(server.isRunning).toBe(true);
}, 120_000);

/** Filter `i`'s conditions follow the bits of i, so every filter compiles to SQL of its own. */
function distinctFilter(i: number): string {
  const conditions = ["title != 'x'"];
  for (let bits = i + 1; bits > 0; bits >>= 1) conditions.push(bits & 1 ? '@metadata.n > 0' : "title GLOB 'a*'");
  return conditions.join(' AND ');
}

test('memory stays bounded however many distinct filters a client sends', async () => {
  // Statements dropped from the cache free their native memory when V8 collects them, and V8 does
  // not see that memory: with every collection a full one, what is measured is what is still held,
  // not how lazily the collector ran under the load of other tests.
  const server = await startServer(target.args, env, { nodeOptions: ['--gc-global'] });
  const index = await createIndex(server, 'filters');
  const docs = Array.from({ length: 50 }, (_, i) => ({
    id: `d${i}`,
    content: { title: `a document number ${i}` },
    metadata: { n: i },
  }));
  expect((await call(server, index, 'upsert-data/ns', docs)).status).toBe(200);
  const search = async (i: number) => {
    const response = await call(server, index, 'search/ns', { query: 'document', topK: 3, filter: distinctFilter(i) });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  };
  const numbers = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

  // Warm up (JIT, caches at their bound), then measure what thousands more distinct filters add.
  await inParallel(numbers(0, 500), 4, search);
  const before = residentBytes(server.pid);
  await inParallel(numbers(500, 4500), 4, search);
  const grown = residentBytes(server.pid) - before;
  if (process.env.RESOURCE_VERBOSE) console.log(`RSS grew ${Math.round(grown / 1048576)} MB`);
  // Bounded it grows by a few MB; with an unbounded statement cache these 4,000 filters added ~70 MB.
  expect(grown).toBeLessThan(40 * 1024 * 1024);
}, 240_000);
