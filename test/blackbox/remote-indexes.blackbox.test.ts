import { describe, expect, test } from 'vitest';
import { callIndex } from '../helpers/data-plane.js';
import { closedPort, isOneLine, useRemoteTarget } from './support/remote-cli.js';
import { parseJson, runCli } from './support/searchplane-process.js';

const remote = useRemoteTarget();

describe('indexes over the network', () => {
  test('create, list, get, rename, reset-password, stats and delete, by name and by id', async () => {
    const created = await remote.run([
      'indexes',
      'create',
      'catalog',
      '--region',
      'eu-west-1',
      '--type',
      'payg',
      '--json',
    ]);
    expect(created.code).toBe(0);
    const record = parseJson(created.stdout);
    expect(record).toMatchObject({
      name: 'catalog',
      region: 'eu-west-1',
      type: 'payg',
      customer_id: remote.account.email,
    });
    expect(record.url).toBe(`${remote.ctx.baseUrl}/indexes/${record.endpoint}`);

    const human = await remote.run(['indexes', 'get', 'catalog']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^id:\\s+${record.id}$`, 'm'));
    expect(human.stdout).toMatch(new RegExp(`^token:\\s+${record.token}$`, 'm'));
    expect(human.stdout).toMatch(/^max_writes_per_request:\s+1,000$/m);

    const table = await remote.run(['indexes', 'list']);
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header.split(/\s+/)).toEqual(['NAME', 'ID', 'REGION', 'PLAN', 'URL']);
    expect(rows.find((row) => row.startsWith('catalog '))?.split(/\s+/)).toEqual([
      'catalog',
      record.id,
      'eu-west-1',
      'payg',
      record.url,
    ]);
    const listed = parseJson((await remote.run(['indexes', 'list', '--json'])).stdout);
    const entry = listed.find((item: any) => item.id === record.id);
    expect(entry).toMatchObject({ name: 'catalog', endpoint: record.endpoint, url: record.url });
    expect(entry).not.toHaveProperty('token');
    expect(entry).not.toHaveProperty('read_only_token');

    const renamed = await remote.run(['indexes', 'rename', record.id, 'products']);
    expect(renamed.code).toBe(0);
    expect(parseJson((await remote.run(['indexes', 'get', 'products', '--json'])).stdout).name).toBe('products');

    const reset = await remote.run(['indexes', 'reset-password', 'products', '--json']);
    expect(reset.code).toBe(0);
    const tokens = parseJson(reset.stdout);
    expect(tokens.token).not.toBe(record.token);
    expect((await callIndex(remote.ctx.app, record.endpoint, 'info', record.token)).statusCode).toBe(401);
    expect((await callIndex(remote.ctx.app, record.endpoint, 'info', tokens.token)).statusCode).toBe(200);

    const stats = await remote.run(['indexes', 'stats', 'products', '--period', '3h', '--json']);
    expect(stats.code).toBe(0);
    expect(parseJson(stats.stdout)).toMatchObject({ current_vector_count: 0, query_throughput: expect.any(Array) });
    const readable = await remote.run(['indexes', 'stats', 'products']);
    expect(readable.stdout).toMatch(/^documents:\s+0 /m);
    expect(readable.stdout).toMatch(/^queries:\s+\S+\s+0 in 1h$/m);

    const refused = await remote.run(['indexes', 'delete', 'products']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^searchplane: refusing to delete index products without --yes/);
    const deleted = await remote.run(['indexes', 'delete', 'products', '--yes']);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toBe(`deleted index products (${record.id})\n`);
    const gone = await remote.run(['indexes', 'get', 'products']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^searchplane: no index "products"/);
  });

  test('server errors are one line with status and code, exit 1', async () => {
    const invalid = await remote.run(['indexes', 'create', 'x', '--region', 'mars', '--type', 'payg']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^searchplane: 400 invalid_request: .*region.*eu-west-1, us-central1/);
    expect(isOneLine(invalid.stderr)).toBe(true);

    expect((await remote.run(['indexes', 'create', 'twice', '--region', 'eu-west-1', '--type', 'payg'])).code).toBe(0);
    const taken = await remote.run(['indexes', 'create', 'twice', '--region', 'eu-west-1', '--type', 'payg']);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/^searchplane: 409 index_name_taken: /);

    // A period outside the documented list is a usage error, refused before any request.
    const badStats = await remote.run(['indexes', 'stats', 'twice', '--period', '2h']);
    expect(badStats.code).toBe(2);
    expect(badStats.stderr).toMatch(/--period.*'2h'.*1h, 3h, 12h, 1d, 3d, 7d, 30d/);
  });

  test('a wrong key is "401 unauthorized" in one line, exit 1', async () => {
    const result = await remote.runBare([
      'indexes',
      'list',
      '--url',
      remote.ctx.baseUrl,
      '--email',
      remote.account.email,
      '--key',
      'not-the-key',
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^searchplane: 401 unauthorized: /);
    expect(isOneLine(result.stderr)).toBe(true);
  });

  test('an unreachable server is one line, no stack trace, exit 1', async () => {
    const port = await closedPort();
    const result = await remote.runBare(['indexes', 'get', 'x'], {
      SEARCHPLANE_URL: `http://127.0.0.1:${port}`,
      SEARCHPLANE_EMAIL: 'a@example.com',
      SEARCHPLANE_API_KEY: 'key',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`searchplane: cannot reach http://127.0.0.1:${port}/: connection refused\n`);
  });

  test('usage errors exit 2: missing credentials, a missing option, a bad URL', async () => {
    const bare = await remote.runBare(['indexes', 'get', 'x']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/^searchplane: no server credentials: give --url .*searchplane login/);

    const noRegion = await remote.run(['indexes', 'create', 'x', '--type', 'payg']);
    expect(noRegion.code).toBe(2);
    expect(noRegion.stderr).toContain('--region');

    const badUrl = await remote.runBare(['indexes', 'get', 'x', '--url', 'ftp://h', '--email', 'e', '--key', 'k']);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toMatch(/^searchplane: invalid server URL/);
  });

  test('indexes list is local with --data-dir/--database-url even when a server URL is configured', async () => {
    await remote.run(['indexes', 'create', 'local-view', '--region', 'us-central1', '--type', 'payg']);
    const store = [
      '--data-dir',
      remote.ctx.dataDir,
      ...(remote.ctx.databaseUrl ? ['--database-url', remote.ctx.databaseUrl] : []),
    ];
    const local = await runCli(['indexes', 'list', '--email', remote.account.email, '--port', '8080', ...store], {
      XDG_CONFIG_HOME: remote.configHome,
      SEARCHPLANE_URL: 'http://127.0.0.1:1',
    });
    expect(local.code).toBe(0);
    const entries = parseJson(local.stdout);
    expect(entries.map((entry: any) => entry.name)).toContain('local-view');
    expect(entries[0].url).toMatch(/^http:\/\/127\.0\.0\.1:8080\/indexes\//);
  });
});
