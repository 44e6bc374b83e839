import { expect, test } from 'vitest';
import { api, withoutThroughput } from './support/http-client.js';
import { useStoreTarget } from './support/lifecycle.js';
import { startServer } from './support/searchplane-process.js';

const target = useStoreTarget();

const auth = { email: 'persist@example.com', apiKey: 'persist-key-0123456789abcdef' };
const env = { SEARCHPLANE_ADMIN_EMAIL: auth.email, SEARCHPLANE_ADMIN_API_KEY: auth.apiKey };

/** Everything the account can see through the management API. */
async function snapshot(url: string) {
  const indexes = await api(url, 'GET', '/v2/search', { auth });
  const messaging = await api(url, 'GET', '/v2/messaging/users', { auth });
  expect(indexes.status).toBe(200);
  expect(messaging.status).toBe(200);
  return { indexes: indexes.body.map(withoutThroughput), messaging: messaging.body };
}

test('indexes, tokens and prodpack state survive a restart on the same store', async () => {
  const first = await startServer(target.args, env);
  const created = await api(first.url, 'POST', '/v2/search', {
    auth,
    body: { name: 'movies', region: 'eu-west-1', type: 'payg' },
  });
  expect(created.status).toBe(200);
  const second = await api(first.url, 'POST', '/v2/search', {
    auth,
    body: { name: 'books', region: 'us-central1', type: 'free' },
  });
  expect(second.status).toBe(200);
  expect(
    (await api(first.url, 'POST', `/v2/search/${second.body.id}/rename`, { auth, body: { name: 'novels' } })).status,
  ).toBe(200);
  expect((await api(first.url, 'POST', `/v2/search/${created.body.id}/reset-password`, { auth })).status).toBe(200);

  const instances = (await api(first.url, 'GET', '/v2/messaging/users', { auth })).body;
  expect(instances.length).toBeGreaterThanOrEqual(2);
  expect(
    (await api(first.url, 'POST', `/v2/messaging/set-plan/${instances[0].id}`, { auth, body: { plan_name: 'paid' } }))
      .status,
  ).toBe(200);
  expect((await api(first.url, 'POST', `/v2/messaging/enable-prodpack/${instances[0].id}`, { auth })).status).toBe(200);
  expect(
    (await api(first.url, 'POST', `/v2/messaging/set-plan/${instances[1].id}`, { auth, body: { plan_name: 'free' } }))
      .status,
  ).toBe(200);

  const before = await snapshot(first.url);
  expect(before.indexes.map((index: { name: string }) => index.name).sort()).toEqual(['movies', 'novels']);
  expect(before.messaging.find((instance: { id: string }) => instance.id === instances[0].id).prod_pack_enabled).toBe(
    true,
  );
  expect(await first.stop()).toBe(0);

  const restarted = await startServer(target.args, env);
  expect(await snapshot(restarted.url)).toEqual(before);
  const one = await api(restarted.url, 'GET', `/v2/search/${created.body.id}`, { auth });
  expect(withoutThroughput(one.body)).toEqual(
    before.indexes.find((index: { id: string }) => index.id === created.body.id),
  );
});
