import net from 'node:net';
import { expect, test } from 'vitest';
import { useStoreTarget } from './support/lifecycle.js';
import { startServer } from './support/searchplane-process.js';

const target = useStoreTarget();

/** Reads one whole HTTP/1.1 response (headers + Content-Length body) from a socket. */
function readResponse(socket: net.Socket): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk;
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length:\s*(\d+)/i.exec(data.slice(0, end))?.[1] ?? 0);
      if (Buffer.byteLength(data.slice(end + 4)) < length) return;
      resolve({ status: Number(data.slice(9, 12)), body: data.slice(end + 4, end + 4 + length) });
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`connection closed; got: ${data}`)));
  });
}

test('SIGTERM lets an in-flight request finish, then exits 0', async () => {
  const email = 'drain@example.com';
  const apiKey = 'drain-key-0123456789abcdef';
  // info level: the "incoming request" log line tells us the server is handling the request.
  const server = await startServer(target.args, {
    SEARCHPLANE_ADMIN_EMAIL: email,
    SEARCHPLANE_ADMIN_API_KEY: apiKey,
    LOG_LEVEL: 'info',
  });
  const { port } = new URL(server.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const response = readResponse(socket);

  // Send the headers and half of the body, so the request is in flight when the signal arrives.
  const body = JSON.stringify({ name: 'in-flight', region: 'eu-west-1', type: 'payg' });
  const half = Math.floor(body.length / 2);
  socket.write(
    'POST /v2/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
      `Authorization: Basic ${Buffer.from(`${email}:${apiKey}`).toString('base64')}\r\n` +
      `Content-Length: ${body.length}\r\n\r\n${body.slice(0, half)}`,
  );
  await server.waitForOutput(/"url":"\/v2\/search"[^\n]*"msg":"incoming request"/);

  const exited = server.stop('SIGTERM');
  await server.waitForOutput(/"msg":"shutting down/);
  socket.write(body.slice(half));

  const { status, body: responseBody } = await response;
  expect(status).toBe(200);
  expect(JSON.parse(responseBody)).toMatchObject({ name: 'in-flight', customer_id: email });
  expect(await exited).toBe(0);
  socket.destroy();
});
