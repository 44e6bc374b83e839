import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { tcpProxy } from '../../test/helpers/tcp-proxy.js';
import { listenForever } from './pg-listener.js';

const databaseUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!databaseUrl)('listenForever (PostgreSQL)', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('keeps trying when PostgreSQL cannot be reached at first, then hears notifications', async () => {
    const proxy = await tcpProxy(databaseUrl!, 'refuse');
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
    await expect.poll(() => proxy.connections).toBeGreaterThan(1); // retried, still refused
    proxy.setMode('forward');
    await expect.poll(() => reconnected, { timeout: 15_000 }).toBe(1);

    const sender = new pg.Client({ connectionString: databaseUrl });
    await sender.connect();
    cleanups.push(() => sender.end());
    await sender.query('select pg_notify($1, $2)', [channel, 'hello']);
    await expect.poll(() => heard).toEqual(['hello']);
  });
});
