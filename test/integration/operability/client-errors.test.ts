import net from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/app.js';

/**
 * Requests Node's HTTP parser refuses never reach Fastify's routes; they still get the service's
 * error envelope with a stable code (over a real socket: inject bypasses the parser).
 */
let ctx: TestContext;
let port: number;

beforeAll(async () => {
  ctx = await createTestApp();
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  port = (ctx.app.server.address() as net.AddressInfo).port;
});
afterAll(async () => ctx.close());

/** Sends raw bytes and reads until the server closes the connection. */
function exchange(raw: string): Promise<{ status: number; headers: string; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(raw));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString();
      const [head, body] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head, body: JSON.parse(body) });
    });
  });
}

test('headers over the size limit → 431 headers_too_large in the error envelope', async () => {
  const response = await exchange(`GET /v2/search HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  expect(response.status).toBe(431);
  expect(response.body).toEqual({ error: expect.any(String), code: 'headers_too_large', status: 431 });
  expect(response.headers).toMatch(/^content-type: application\/json/im);
});

test.each([
  ['a header line without a colon', 'GET /healthz HTTP/1.1\r\nHost: x\r\nnot a header\r\n\r\n'],
  [
    'both Content-Length and chunked',
    'POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc',
  ],
  ['an unknown HTTP version', 'GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n'],
])('%s → 400 malformed_request in the error envelope', async (_label, raw) => {
  const response = await exchange(raw);
  expect(response.status).toBe(400);
  expect(response.body).toEqual({ error: expect.any(String), code: 'malformed_request', status: 400 });
});

test('the server still answers afterwards', async () => {
  const response = await fetch(`http://127.0.0.1:${port}/healthz`);
  expect(response.status).toBe(200);
});
