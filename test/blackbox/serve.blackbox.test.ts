import { expect, test } from 'vitest';
import { api } from './support/http-client.js';
import { useStoreTarget } from './support/lifecycle.js';
import { parseJson, runCli, ServerProcess, startServer } from './support/searchplane-process.js';

const target = useStoreTarget();

test('serve listens on a free port, prints its URL once and answers /healthz', async () => {
  const server = await startServer(target.args);
  expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(server.stdout.match(/searchplane listening on/g)).toHaveLength(1);

  const health = await api(server.url, 'GET', '/healthz');
  expect(health.status).toBe(200);
  expect(health.body).toEqual({ status: 'ok' });
  const openapi = await api(server.url, 'GET', '/openapi.json');
  expect(openapi.status).toBe(200);
  expect(Object.keys(openapi.body.paths)).toContain('/v2/search/{id}');
});

test('serve exits 0 on SIGINT', async () => {
  const server = await startServer(target.args);
  expect(await server.stop('SIGINT')).toBe(0);
});

test('a SIGTERM right after the URL is printed still shuts down cleanly (exit 0)', async () => {
  const server = new ServerProcess(target.args);
  await server.waitForOutput(/searchplane listening on/);
  expect(await server.stop('SIGTERM')).toBe(0);
});

test('an invalid configuration lists every problem and exits 2', async () => {
  const result = await runCli(['serve', ...target.args, '--port', 'abc', '--log-level', 'loud'], {
    SEARCHPLANE_ADMIN_EMAIL: 'admin@example.com',
  });
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('PORT');
  expect(result.stderr).toContain('LOG_LEVEL');
  expect(result.stderr).toContain('SEARCHPLANE_ADMIN_API_KEY');
});

test('an unknown flag is a usage error (exit 2)', async () => {
  const result = await runCli(['serve', '--no-such-flag']);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('--no-such-flag');
});

test('migrate applies the migrations once; a second run is a no-op', async () => {
  const first = await runCli(['migrate', ...target.args]);
  expect(first.code).toBe(0);
  expect(parseJson(first.stdout).applied.length).toBeGreaterThan(0);
  const second = await runCli(['migrate', ...target.args]);
  expect(second.code).toBe(0);
  expect(parseJson(second.stdout)).toEqual({ applied: [] });

  // A server on the migrated store starts as usual.
  const server = await startServer(target.args);
  expect((await api(server.url, 'GET', '/healthz')).status).toBe(200);
});
