import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import { Writable } from 'node:stream';
import { getHeapSnapshot } from 'node:v8';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createTestStore, type TestStore } from '../../helpers/store.js';

// What the server may keep of a client's API key once its requests have ended: nothing (only a
// keyed digest of it, and the store's scrypt hash). The key and the headers are rebuilt from bytes
// whenever needed, so that this test holds no string of them itself while the heap is read.
const email = 'someone.with.a.long.address@example.com';
const keyBytes = randomBytes(32);
const key = () => keyBytes.toString('base64url');
const base64 = (text: string, padded: boolean) => {
  const encoded = Buffer.from(text).toString('base64');
  return padded ? encoded : encoded.replace(/=+$/, '');
};

let testStore: TestStore;
let app: Awaited<ReturnType<typeof buildApp>>;
let port: number;

beforeAll(async () => {
  testStore = await createTestStore();
  const config = loadConfig({ dataDir: testStore.dataDir, databaseUrl: testStore.databaseUrl }, { LOG_LEVEL: 'info' });
  // Logging on, as a server runs, into a sink that keeps nothing.
  app = await buildApp({
    config,
    store: testStore.store,
    logger: { stream: new Writable({ write: (_chunk, _encoding, done) => done() }) },
  });
  await app.services.accounts.ensure(email, key());
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await app.close();
  await testStore.cleanup();
});

/**
 * A GET over a socket of its own, written as bytes: a client library would keep strings of the
 * header for a while (the heap could not then tell the server's from the client's).
 */
async function get(authorization: () => string): Promise<number> {
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const head = Buffer.from('GET /v2/search HTTP/1.1\r\nHost: searchplane\r\nConnection: close\r\nAuthorization: ');
  socket.write(Buffer.concat([head, Buffer.from(authorization(), 'latin1'), Buffer.from('\r\n\r\n')]));
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  // "HTTP/1.1 200 OK": the status is the second field of the first line.
  return Number(Buffer.concat(chunks).toString('latin1', 9, 12));
}

async function heapText(): Promise<string> {
  // Until the server has closed every connection, so no request of this test is still in flight.
  for (;;) {
    const open = await new Promise<number>((resolve, reject) =>
      app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
    );
    if (open === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const chunks: string[] = [];
  for await (const chunk of getHeapSnapshot()) chunks.push(String(chunk));
  return chunks.join('');
}

test('after its requests end, the server holds no copy of the API key, decoded or as sent', async () => {
  // `Basic ` and padded base64 (the common parse), unpadded (the general one), the same header
  // again (known: not parsed), and a wrong key that begins with the right one (a failed login).
  expect(await get(() => `Basic ${base64(`${email}:${key()}`, true)}`)).toBe(200);
  expect(await get(() => `Basic ${base64(`${email}:${key()}`, false)}`)).toBe(200);
  expect(await get(() => `Basic ${base64(`${email}:${key()}`, true)}`)).toBe(200);
  expect(await get(() => `Basic ${base64(`${email}:${key()}-wrong`, true)}`)).toBe(401);

  const heap = await heapText();
  expect(heap.includes(key())).toBe(false);
  // Unpadded, the header as sent is also the start of its padded form.
  expect(heap.includes(base64(`${email}:${key()}`, false))).toBe(false);
}, 60_000);

test('nor of an API key (whose id part finds its row)', async () => {
  const principal = await app.services.accounts.authenticate(email, key());
  const created = await app.services.apiKeys.create(principal, { name: 'heap', actions: ['indexes.read'] });
  // Kept as bytes only, as above: the service's answer is dropped at once.
  const apiKeyBytes = Buffer.from(created.key);
  created.key = '';
  const apiKey = () => apiKeyBytes.toString();
  expect(await get(() => `Basic ${base64(`${email}:${apiKey()}`, true)}`)).toBe(200);
  expect(await get(() => `Basic ${base64(`${email}:${apiKey()}`, true)}`)).toBe(200);
  expect(await get(() => `Basic ${base64(`${email}:${apiKey()}-wrong`, true)}`)).toBe(401);
  const heap = await heapText();
  expect(heap.includes(apiKey())).toBe(false);
  // The secret part alone, after the key id.
  expect(heap.includes(apiKey().slice(-43))).toBe(false);
}, 60_000);
