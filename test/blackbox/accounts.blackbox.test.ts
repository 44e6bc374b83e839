import { describe, expect, test } from 'vitest';
import { api } from './support/http-client.js';
import { useStoreTarget } from './support/lifecycle.js';
import { parseJson, runCli, startServer } from './support/searchplane-process.js';

const target = useStoreTarget();

const accounts = (...args: string[]) => runCli(['accounts', ...args, ...target.args]);

test('create, list, rotate-key and delete print JSON', async () => {
  const created = await accounts('create', '--email', 'dev@example.com');
  expect(created.code).toBe(0);
  const credentials = parseJson(created.stdout);
  expect(credentials).toEqual({ email: 'dev@example.com', api_key: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/) });

  const listed = await accounts('list');
  expect(listed.code).toBe(0);
  expect(parseJson(listed.stdout)).toEqual([{ email: 'dev@example.com', created_at: expect.any(Number) }]);

  const rotated = await accounts('rotate-key', '--email', 'dev@example.com');
  expect(rotated.code).toBe(0);
  const newCredentials = parseJson(rotated.stdout);
  expect(newCredentials.email).toBe('dev@example.com');
  expect(newCredentials.api_key).toMatch(/^[A-Za-z0-9_-]{43,}$/);
  expect(newCredentials.api_key).not.toBe(credentials.api_key);

  const deleted = await accounts('delete', '--email', 'dev@example.com');
  expect(deleted.code).toBe(0);
  expect(parseJson(deleted.stdout)).toEqual({ email: 'dev@example.com', deleted: true });
  expect(parseJson((await accounts('list')).stdout)).toEqual([]);
});

describe('failures exit non-zero with {"error","code"} on stderr', () => {
  test.each([
    ['create an existing account', ['create', '--email', 'taken@example.com'], 'account_exists'],
    ['rotate the key of an unknown account', ['rotate-key', '--email', 'nobody@example.com'], 'account_not_found'],
    ['delete an unknown account', ['delete', '--email', 'nobody@example.com'], 'account_not_found'],
    ['create with an invalid email', ['create', '--email', 'not-an-email'], 'invalid_request'],
  ])('%s', async (_name, args, code) => {
    expect((await accounts('create', '--email', 'taken@example.com')).code).toBe(0);
    const result = await accounts(...args);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(parseJson(result.stderr)).toMatchObject({ error: expect.any(String), code });
  });

  test('a missing --email is a usage error (exit 2)', async () => {
    const result = await accounts('create');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--email');
  });
});

test('accounts commands work while a server runs on the same store, and take effect at once', async () => {
  const server = await startServer(target.args, {
    SEARCHPLANE_ADMIN_EMAIL: 'admin@example.com',
    SEARCHPLANE_ADMIN_API_KEY: 'admin-key-0123456789abcdef',
  });

  const created = await accounts('create', '--email', 'live@example.com');
  expect(created.code).toBe(0);
  const { api_key: firstKey } = parseJson(created.stdout);
  const list = await api(server.url, 'GET', '/v2/search', { auth: { email: 'live@example.com', apiKey: firstKey } });
  expect(list.status).toBe(200);
  expect(list.body).toEqual([]);

  const { api_key: secondKey } = parseJson((await accounts('rotate-key', '--email', 'live@example.com')).stdout);
  expect(
    (await api(server.url, 'GET', '/v2/search', { auth: { email: 'live@example.com', apiKey: firstKey } })).status,
  ).toBe(401);
  expect(
    (await api(server.url, 'GET', '/v2/search', { auth: { email: 'live@example.com', apiKey: secondKey } })).status,
  ).toBe(200);

  expect((await accounts('delete', '--email', 'live@example.com')).code).toBe(0);
  expect(
    (await api(server.url, 'GET', '/v2/search', { auth: { email: 'live@example.com', apiKey: secondKey } })).status,
  ).toBe(401);
});
