import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { api } from './support/http-client.js';
import { useStoreTarget } from './support/lifecycle.js';
import { parseJson, runCli, startServer } from './support/searchplane-process.js';

const target = useStoreTarget();

const auth = { email: 'urls@example.com', apiKey: 'urls-key-0123456789abcdef' };
const env = { SEARCHPLANE_ADMIN_EMAIL: auth.email, SEARCHPLANE_ADMIN_API_KEY: auth.apiKey };

test('indexes list prints each index with the data-plane URL the SDK needs, and that URL works', async () => {
  const server = await startServer(target.args, env);
  const created = await api(server.url, 'POST', '/v2/search', {
    auth,
    body: { name: 'catalog', region: 'eu-west-1', type: 'payg' },
  });
  expect(created.status).toBe(200);
  const port = new URL(server.url).port;

  const listed = await runCli(['indexes', 'list', '--email', auth.email, '--port', port, ...target.args]);
  expect(listed.code).toBe(0);
  const [entry, ...rest] = parseJson(listed.stdout);
  expect(rest).toEqual([]);
  expect(entry).toEqual({
    customer_id: auth.email,
    id: created.body.id,
    name: 'catalog',
    type: 'payg',
    region: 'eu-west-1',
    endpoint: created.body.endpoint,
    url: `http://127.0.0.1:${port}/indexes/${created.body.endpoint}`,
  });
  expect(listed.stdout).not.toContain(created.body.token);

  const info = await fetch(`${entry.url}/info`, {
    method: 'POST',
    headers: { authorization: `Bearer ${created.body.token}` },
  });
  expect(info.status).toBe(200);
  expect(((await info.json()) as any).result.vectorCount).toBe(0);

  const withDomain = await runCli(['indexes', 'list', '--port', port, ...target.args], {
    SEARCHPLANE_DATA_DOMAIN: 'search.test',
  });
  expect(parseJson(withDomain.stdout)[0].host_url).toBe(`http://${created.body.endpoint}.search.test:${port}`);

  const nobody = await runCli(['indexes', 'list', '--email', 'nobody@example.com', ...target.args]);
  expect(parseJson(nobody.stdout)).toEqual([]);
});

test('listing a store that does not exist is a usage error, and creates nothing', async () => {
  const absent = path.join(target.dataDir, 'never-started');
  const xdg = { XDG_CONFIG_HOME: path.join(target.dataDir, 'no-login') }; // no `searchplane login` file

  const indexes = await runCli(['indexes', 'list', '--data-dir', absent], xdg);
  expect(indexes.code).toBe(2);
  expect(indexes.stderr).toBe(
    `searchplane: no store at ${absent}/searchplane.sqlite: give the --data-dir the server runs with\n`,
  );
  const accounts = await runCli(['accounts', 'list', '--data-dir', absent], xdg);
  expect(accounts.code).toBe(2);
  expect(accounts.stderr).toMatch(/^searchplane: no store at /);
  // Neither a server URL nor a store: say both, rather than list an empty store made on the spot.
  const unconfigured = await runCli(['indexes', 'list'], { ...xdg, SEARCHPLANE_DATA_DIR: absent });
  expect(unconfigured.code).toBe(2);
  expect(unconfigured.stderr).toMatch(/^searchplane: no server URL .* and no store at /);
  expect(existsSync(absent)).toBe(false);
});
