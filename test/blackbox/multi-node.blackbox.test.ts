import { afterEach, beforeEach, expect, test } from 'vitest';
import { api, withoutThroughput } from './support/http-client.js';
import { killServers, parseJson, runCli, startServer } from './support/searchplane-process.js';
import { createStoreTarget, onPostgres, otherNode, type StoreTarget } from './support/store-target.js';

let target: StoreTarget;
let cleanupNode: (() => void) | undefined;
beforeEach(async () => {
  target = await createStoreTarget();
});
afterEach(async () => {
  await killServers();
  cleanupNode?.();
  await target.cleanup();
});

const auth = { email: 'cluster@example.com', apiKey: 'cluster-key-0123456789abcdef' };
const env = { SEARCHPLANE_ADMIN_EMAIL: auth.email, SEARCHPLANE_ADMIN_API_KEY: auth.apiKey };

// Two processes share one database only on PostgreSQL; the embedded store is one file per node.
test.skipIf(!onPostgres)("two servers on one PostgreSQL database serve each other's indexes", async () => {
  const nodeB = otherNode(target);
  cleanupNode = nodeB.cleanup;
  const [a, b] = await Promise.all([startServer(target.args, env), startServer(nodeB.args, env)]);

  const created = await api(a.url, 'POST', '/v2/search', {
    auth,
    body: { name: 'shared', region: 'eu-west-1', type: 'payg' },
  });
  expect(created.status).toBe(200);
  const viaB = await api(b.url, 'GET', `/v2/search/${created.body.id}`, { auth });
  expect(viaB.status).toBe(200);
  expect(withoutThroughput(viaB.body)).toEqual(withoutThroughput(created.body));

  expect(
    (await api(b.url, 'POST', `/v2/search/${created.body.id}/rename`, { auth, body: { name: 'renamed' } })).status,
  ).toBe(200);
  expect((await api(b.url, 'POST', `/v2/search/${created.body.id}/reset-password`, { auth })).status).toBe(200);
  const viaA = await api(a.url, 'GET', `/v2/search/${created.body.id}`, { auth });
  expect(viaA.body.name).toBe('renamed');
  expect(viaA.body.token).not.toBe(created.body.token);
  expect(viaA.body.token).toBe((await api(b.url, 'GET', `/v2/search/${created.body.id}`, { auth })).body.token);

  // A key rotated through the CLI stops working on both nodes at once.
  const rotated = parseJson((await runCli(['accounts', 'rotate-key', '--email', auth.email, ...target.args])).stdout);
  for (const node of [a, b]) {
    expect((await api(node.url, 'GET', '/v2/search', { auth })).status).toBe(401);
    expect((await api(node.url, 'GET', '/v2/search', { auth: { ...auth, apiKey: rotated.api_key } })).status).toBe(200);
  }

  expect(
    (await api(a.url, 'DELETE', `/v2/search/${created.body.id}`, { auth: { ...auth, apiKey: rotated.api_key } }))
      .status,
  ).toBe(200);
  const gone = await api(b.url, 'GET', `/v2/search/${created.body.id}`, { auth: { ...auth, apiKey: rotated.api_key } });
  expect(gone.status).toBe(404);
  expect(gone.body.code).toBe('index_not_found');
});

test.skipIf(!onPostgres)(
  'kill -9 of a node during a write stream loses no acknowledged write; a new node with an empty data dir serves everything',
  async () => {
    const nodeB = otherNode(target);
    const nodeC = otherNode(target);
    cleanupNode = () => {
      nodeB.cleanup();
      nodeC.cleanup();
    };
    const [a, b] = await Promise.all([startServer(target.args, env), startServer(nodeB.args, env)]);
    const created = await api(a.url, 'POST', '/v2/search', {
      auth,
      body: { name: 'crashy', region: 'eu-west-1', type: 'payg' },
    });
    expect(created.status).toBe(200);
    const { endpoint, token } = created.body;
    const upsert = (url: string, docs: unknown[]) =>
      api(url, 'POST', `/indexes/${endpoint}/upsert-data/books`, { bearer: token, body: docs });

    // Writers go through node a until it is killed under them; one more writes through node b.
    const acknowledged: string[] = [];
    let next = 0;
    let killed = false;
    const writer = (url: string) => async () => {
      while (!killed) {
        const docs = Array.from({ length: 20 }, () => {
          const i = next++;
          return { id: `doc-${i}`, content: { text: `stream document ${i} ${i % 3 === 0 ? 'fizz' : 'plain'}` } };
        });
        try {
          const response = await upsert(url, docs);
          if (response.status === 200) acknowledged.push(...docs.map((doc) => doc.id));
        } catch {
          if (url === a.url) return; // the connection died with the process: not acknowledged
        }
      }
    };
    const writers = [writer(a.url), writer(a.url), writer(a.url), writer(b.url)].map((run) => run());
    while (acknowledged.length < 800) await new Promise((resolve) => setTimeout(resolve, 5));
    await a.stop('SIGKILL');
    killed = true;
    await Promise.all(writers);

    const c = await startServer(nodeC.args, env);
    for (const node of [b, c]) {
      for (let i = 0; i < acknowledged.length; i += 500) {
        const ids = acknowledged.slice(i, i + 500);
        const found = await api(node.url, 'POST', `/indexes/${endpoint}/fetch/books`, { bearer: token, body: { ids } });
        expect(found.status).toBe(200);
        expect(ids.filter((_, j) => found.body.result[j] === null)).toEqual([]);
      }
    }
    const query = { query: 'stream document 3 fizz', topK: 5, includeData: true };
    const onB = await api(b.url, 'POST', `/indexes/${endpoint}/search/books`, { bearer: token, body: query });
    const onC = await api(c.url, 'POST', `/indexes/${endpoint}/search/books`, { bearer: token, body: query });
    expect(onB.body.result.length).toBe(5);
    expect(onC.body.result.map((hit: { id: string }) => hit.id)).toEqual(
      onB.body.result.map((hit: { id: string }) => hit.id),
    );
  },
);
