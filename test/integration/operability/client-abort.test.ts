import net from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createAccount, createIndex } from '../../helpers/factories.js';
import { createTestStore, type TestStore } from '../../helpers/store.js';

/** A client that hangs up halfway through its body is not a server fault: no error line for it. */
let testStore: TestStore;
let app: Awaited<ReturnType<typeof buildApp>>;
let port: number;
const auth: Record<string, string> = {};
const lines: { level: number; msg: string }[] = [];

beforeAll(async () => {
  testStore = await createTestStore();
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      callback();
    },
  });
  const config = loadConfig({ dataDir: testStore.dataDir, databaseUrl: testStore.databaseUrl }, { LOG_LEVEL: 'info' });
  app = await buildApp({ config, store: testStore.store, logger: { stream } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as net.AddressInfo).port;
  const account = await createAccount(app);
  const index = await createIndex(app, account);
  auth.management = account.auth;
  auth.data = `Bearer ${index.token}`;
  auth.path = `/indexes/${index.endpoint}/search/ns`;
});
afterAll(async () => {
  await app.close();
  await testStore.cleanup();
});

/** Sends headers and the start of a 100-byte body, then closes the socket. */
function hangUpMidBody(path: string, authorization?: string): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
          `${authorization ? `Authorization: ${authorization}\r\n` : ''}Content-Length: 100\r\n\r\n{"query":`,
      );
      setTimeout(() => socket.destroy(), 100);
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve());
  });
}

test.each([
  ['a search with its token', () => [auth.path, auth.data]],
  ['a path no route matches', () => ['/nothing/here']],
  ['a create with credentials', () => ['/v2/search', auth.management]],
])('on %s: logged at info, never at error level', async (_label, request) => {
  const before = lines.length;
  const [path, authorization] = request();
  await hangUpMidBody(path, authorization);
  await expect
    .poll(() => lines.slice(before).some((line) => line.msg === 'client closed the connection mid-request'))
    .toBe(true);
  expect(lines.slice(before).filter((line) => line.level >= 50)).toEqual([]);
  expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
});
