import net from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/app.js';

/**
 * A connection must not stay open for ever waiting for a request: one that sends nothing, or
 * whose body trickles in, is answered 408 and closed once SEARCHPLANE_REQUEST_TIMEOUT_MS has passed
 * (short here; 300 s by default). Over real sockets: inject has no connection.
 */
let ctx: TestContext;
let port: number;

beforeAll(async () => {
  ctx = await createTestApp({ env: { SEARCHPLANE_REQUEST_TIMEOUT_MS: '1500' } });
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  port = (ctx.app.server.address() as net.AddressInfo).port;
});
afterAll(async () => ctx.close());

/** Opens a connection, lets `send` write to it, and resolves with what came back once it closes. */
function until408(send: (socket: net.Socket) => void): Promise<{ answer: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1', () => send(socket));
    const guard = setTimeout(() => reject(new Error('still open after 10 s')), 10_000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(guard);
      resolve({ answer: Buffer.concat(chunks).toString(), ms: Date.now() - started });
    });
  });
}

test('a connection that sends nothing is answered 408 request_timeout and closed', async () => {
  const { answer, ms } = await until408(() => {});
  expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  expect(answer).toContain('"code":"request_timeout"');
  expect(ms).toBeGreaterThanOrEqual(1400);
});

test('a body that trickles in (a byte every 200 ms) is answered 408 and closed', async () => {
  let timer: NodeJS.Timeout | undefined;
  const { answer } = await until408((socket) => {
    socket.write(
      'POST /nothing/here HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    timer = setInterval(() => socket.write(' '), 200);
  });
  clearInterval(timer);
  expect(answer).toMatch(/^HTTP\/1\.1 408 /);
});

test('a request that arrives in time is answered as usual', async () => {
  expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
});
