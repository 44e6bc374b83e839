import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { namespaceSegment } from './api-client.js';
import { nodeTransport, rawPath } from './node-transport.js';

let server: http.Server;
let base: string;
const seen: string[] = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    seen.push(request.url ?? '');
    response.end('{"result":null}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('the namespaces "." and ".." reach the server as %2E segments, not as dot segments', async () => {
  for (const namespace of ['.', '..', 'a.b', 'x/y']) {
    await nodeTransport({
      method: 'POST',
      url: `${base}/indexes/e/range/${namespaceSegment(namespace)}`,
      headers: {},
      body: '{}',
      timeoutMs: 5000,
    });
  }
  expect(seen).toEqual([
    '/indexes/e/range/%2E',
    '/indexes/e/range/%2E%2E',
    '/indexes/e/range/a.b',
    '/indexes/e/range/x%2Fy',
  ]);
});

test('rawPath keeps the path and query as written, encoding only what node:http refuses', () => {
  expect(rawPath('http://h:1/a/%2E?x=1#frag')).toBe('/a/%2E?x=1');
  expect(rawPath('https://[::1]:8080')).toBe('/');
  expect(rawPath('http://h/a b/é')).toBe('/a%20b/%C3%A9');
});
