import net from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { listenForever } from './pg-listener.js';

const databaseUrl = process.env.TEST_DATABASE_URL;

/**
 * A TCP proxy in front of PostgreSQL that drops connections while `refusing` (PostgreSQL starting,
 * failing over, or out of reach), and forwards them otherwise.
 */
async function flakyProxy(target: URL) {
  const state = { refusing: true, connections: 0 };
  const server = net.createServer((socket) => {
    state.connections++;
    if (state.refusing) return socket.destroy();
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return { state, url: url.toString(), close: () => new Promise((resolve) => server.close(resolve)) };
}

describe.skipIf(!databaseUrl)('listenForever (PostgreSQL)', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('keeps trying when PostgreSQL cannot be reached at first, then hears notifications', async () => {
    const proxy = await flakyProxy(new URL(databaseUrl!));
    cleanups.push(proxy.close);
    const heard: string[] = [];
    const warnings: string[] = [];
    let reconnected = 0;
    const channel = `listener_test_${process.pid}`;
    const stop = await listenForever(
      proxy.url,
      channel,
      (payload) => heard.push(payload),
      () => reconnected++,
      { warn: (_obj, msg) => warnings.push(msg ?? '') },
    );
    cleanups.push(stop);
    expect(warnings).toEqual(['listening for notifications from PostgreSQL failed; retrying']);
    await expect.poll(() => proxy.state.connections).toBeGreaterThan(1); // retried, still refused
    proxy.state.refusing = false;
    await expect.poll(() => reconnected, { timeout: 15_000 }).toBe(1);

    const sender = new pg.Client({ connectionString: databaseUrl });
    await sender.connect();
    cleanups.push(() => sender.end());
    await sender.query('select pg_notify($1, $2)', [channel, 'hello']);
    await expect.poll(() => heard).toEqual(['hello']);
  });
});
