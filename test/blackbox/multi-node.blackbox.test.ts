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
