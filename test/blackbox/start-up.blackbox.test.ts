import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { api } from './support/http-client.js';
import { useStoreTarget } from './support/lifecycle.js';
import { parseJson, runCli, startServer } from './support/searchplane-process.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const target = useStoreTarget();

/** Holds a port on 127.0.0.1 the way another program would. */
async function holdPort(): Promise<{ port: number; release(): Promise<void> }> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { port, release: () => new Promise((resolve) => server.close(() => resolve())) };
}

test('a port in use stops the start with one line, before any account or key exists', async () => {
  const held = await holdPort();
  let released = false;
  try {
    const result = await runCli(['serve', ...target.args, '--host', '127.0.0.1', '--port', String(held.port)], {
      LOG_LEVEL: 'info',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`searchplane: cannot listen on 127.0.0.1:${held.port}: address already in use\n`);
    expect(result.stdout).not.toContain('api key');
    expect(result.stdout).not.toContain('listening');
    const accounts = await runCli(['accounts', 'list', ...target.args]);
    expect(accounts.code).toBe(0);
    expect(parseJson(accounts.stdout)).toEqual([]);

    await held.release();
    released = true;
    // The first-start key was not burned: the next start creates and prints it, and it works.
    const server = await startServer(target.args, { LOG_LEVEL: 'info' });
    const [, email, apiKey] = await server.waitForOutput(/email:\s+(\S+)\n\s+api key:\s+(\S+)/);
    expect(email).toBe('admin@localhost');
    expect((await api(server.url, 'GET', '/v2/search', { auth: { email, apiKey } })).status).toBe(200);
  } finally {
    if (!released) await held.release();
  }
});

test('the start logs the absolute data directory and where the store is, without a password', async () => {
  const relativeDataDir = path.relative(ROOT, target.dataDir);
  expect(path.isAbsolute(relativeDataDir)).toBe(false);
  const args = target.args.map((arg) => (arg === target.dataDir ? relativeDataDir : arg));
  const server = await startServer(args, { LOG_LEVEL: 'info' });
  const line = server.stdout
    .split('\n')
    .filter((text) => text.startsWith('{'))
    .map((text) => JSON.parse(text))
    .find((entry) => entry.msg === 'data directory and store');
  expect(line).toBeDefined();
  expect(line.dataDir).toBe(target.dataDir);
  if (target.databaseUrl) {
    const url = new URL(target.databaseUrl);
    expect(line.store).toBe(`PostgreSQL ${url.username}@${url.hostname}:${url.port || '5432'}${url.pathname}`);
    if (url.password) expect(server.stdout).not.toContain(`:${url.password}@`);
  } else {
    expect(line.store).toBe(`SQLite file ${path.join(target.dataDir, 'searchplane.sqlite')}`);
  }
});
