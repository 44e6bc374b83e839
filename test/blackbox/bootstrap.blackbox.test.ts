import { describe, expect, test } from 'vitest';
import { api } from './support/http-client.js';
import { useStoreTarget } from './support/lifecycle.js';
import { parseJson, runCli, startServer } from './support/searchplane-process.js';

const target = useStoreTarget();

const adminEnv = (email: string, apiKey: string) => ({
  SEARCHPLANE_ADMIN_EMAIL: email,
  SEARCHPLANE_ADMIN_API_KEY: apiKey,
  LOG_LEVEL: 'info',
});

describe('with SEARCHPLANE_ADMIN_EMAIL and SEARCHPLANE_ADMIN_API_KEY', () => {
  const email = 'ops@example.com';
  const key = 'first-admin-key-0123456789';

  test('the account exists with that key, idempotently across restarts', async () => {
    const first = await startServer(target.args, adminEnv(email, key));
    expect((await api(first.url, 'GET', '/v2/search', { auth: { email, apiKey: key } })).status).toBe(200);
    expect(first.stdout).not.toContain('api key:');
    expect(first.stdout).not.toContain(key);
    expect(await first.stop()).toBe(0);

    const second = await startServer(target.args, adminEnv(email, key));
    expect((await api(second.url, 'GET', '/v2/search', { auth: { email, apiKey: key } })).status).toBe(200);
    expect(await second.stop()).toBe(0);

    const list = await runCli(['accounts', 'list', ...target.args]);
    expect(parseJson(list.stdout).map((account: { email: string }) => account.email)).toEqual([email]);
  });

  test('a changed key replaces the stored one', async () => {
    const first = await startServer(target.args, adminEnv(email, key));
    expect(await first.stop()).toBe(0);

    const newKey = 'second-admin-key-0123456789';
    const second = await startServer(target.args, adminEnv(email, newKey));
    expect((await api(second.url, 'GET', '/v2/search', { auth: { email, apiKey: newKey } })).status).toBe(200);
    const old = await api(second.url, 'GET', '/v2/search', { auth: { email, apiKey: key } });
    expect(old.status).toBe(401);
    expect(old.body.code).toBe('unauthorized');
  });
});

describe('without admin variables', () => {
  test('the first start creates admin@localhost and prints its key once, outside the JSON log', async () => {
    const first = await startServer(target.args, { LOG_LEVEL: 'info' });
    const [, email, apiKey] = first.stdout.match(/email:\s+(\S+)\n\s+api key:\s+(\S+)/) ?? [];
    expect(email).toBe('admin@localhost');
    expect(first.stdout.match(/api key:/g)).toHaveLength(1);
    expect(first.stdout).toContain(`curl -u '${email}:${apiKey}' ${first.url}/v2/search`);
    const logLines = first.stdout.split('\n').filter((line) => line.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.filter((line) => line.includes(apiKey))).toEqual([]);

    expect((await api(first.url, 'GET', '/v2/search', { auth: { email, apiKey } })).status).toBe(200);
    expect(await first.stop()).toBe(0);

    const second = await startServer(target.args, { LOG_LEVEL: 'info' });
    expect(second.stdout).not.toContain('api key:');
    expect((await api(second.url, 'GET', '/v2/search', { auth: { email, apiKey } })).status).toBe(200);
  });

  test('no admin is created when an account already exists', async () => {
    const created = await runCli(['accounts', 'create', '--email', 'first@example.com', ...target.args]);
    expect(created.code).toBe(0);
    const server = await startServer(target.args);
    expect(server.stdout).not.toContain('api key:');
    const list = await runCli(['accounts', 'list', ...target.args]);
    expect(parseJson(list.stdout).map((account: { email: string }) => account.email)).toEqual(['first@example.com']);
  });
});
