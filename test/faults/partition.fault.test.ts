import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { api } from '../blackbox/support/http-client.js';
import { killServers, startServer } from '../blackbox/support/searchplane-process.js';
import { createStoreTarget } from '../blackbox/support/store-target.js';
import { tcpProxy } from '../helpers/tcp-proxy.js';
import { missingIds, startWriter, until } from './support/writers.js';

/**
 * One node cut off from PostgreSQL (a proxy that stops passing anything, both ways, without
 * closing a connection) for longer than every timeout, while it and another node write to the
 * same index: the other node goes on writing, the cut-off one answers 503 instead of hanging, and
 * after the partition every acknowledged write is on both nodes.
 */
const PARTITION_MS = Number(process.env.FAULT_PARTITION_MS ?? 60_000);
const auth = { email: 'partition@example.com', apiKey: 'partition-key-0123456789abcdef' };
const env = { SEARCHPLANE_ADMIN_EMAIL: auth.email, SEARCHPLANE_ADMIN_API_KEY: auth.apiKey };
const dirs: string[] = [];
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  await killServers();
  for (const cleanup of cleanups.reverse()) await cleanup();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const dataDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'searchplane-partition-'));
  dirs.push(dir);
  return dir;
};

test.skipIf(!process.env.TEST_DATABASE_URL)(
  'a node cut off from PostgreSQL never stalls the others, and answers 503 rather than hanging',
  async () => {
    const target = await createStoreTarget();
    cleanups.push(() => target.cleanup());
    const proxy = await tcpProxy(target.databaseUrl!);
    cleanups.push(() => proxy.close());
    const cutOff = await startServer(['--data-dir', dataDir(), '--database-url', proxy.url], env);
    const other = await startServer(['--data-dir', dataDir(), '--database-url', target.databaseUrl!], env);
    const created = await api(other.url, 'POST', '/v2/search', {
      auth,
      body: { name: 'partition', region: 'eu-west-1', type: 'payg' },
    });
    expect(created.status).toBe(200);
    const { endpoint, token } = created.body;

    const [cut, free] = [cutOff, other].map((node, i) => startWriter(node.url, endpoint, token, `n${i}-`));
    await until(() => cut.log.acknowledged.length >= 50 && free.log.acknowledged.length >= 50, 60_000, 'writes before');

    const freeBefore = free.log.acknowledged.length;
    const cutBefore = cut.log.statuses.get(503) ?? 0;
    const startedAt = performance.now();
    proxy.setMode('silent');
    await new Promise((resolve) => setTimeout(resolve, PARTITION_MS));
    const endedAt = performance.now();
    // The other node kept writing to the index the cut-off one was writing to.
    expect(free.log.acknowledged.length).toBeGreaterThan(freeBefore);
    // The cut-off node answered (503), rather than leaving its requests hanging for the partition.
    expect(cut.log.statuses.get(503) ?? 0).toBeGreaterThan(cutBefore);
    expect(Math.max(cut.log.longestMs, free.log.longestMs)).toBeLessThan(PARTITION_MS);

    proxy.setMode('forward');
    const cutAfter = cut.log.acknowledged.length;
    await until(() => cut.log.acknowledged.length >= cutAfter + 20, 60_000, 'the cut-off node writes again');
    const healedMs = cut.log.acknowledgedAt.find((at) => at > endedAt)! - endedAt;
    await Promise.all([cut.stop(), free.stop()]);

    for (const writer of [cut, free]) {
      expect([...writer.log.statuses.keys()].every((status) => status === 200 || status === 503)).toBe(true);
    }
    const acknowledged = [...cut.log.acknowledged, ...free.log.acknowledged];
    for (const node of [cutOff, other]) expect(await missingIds(node.url, endpoint, token, acknowledged)).toEqual([]);

    if (process.env.FAULT_VERBOSE) {
      const during = free.log.acknowledgedAt.filter((at) => at >= startedAt && at <= endedAt);
      const gaps = [startedAt, ...during, endedAt]
        .slice(1)
        .map((at, i, all) => at - (i === 0 ? startedAt : all[i - 1]));
      console.log(
        `partition of ${PARTITION_MS / 1000} s: the other node acknowledged ${during.length} writes meanwhile, its longest pause ${(Math.max(...gaps) / 1000).toFixed(1)} s; the cut-off node answered ${JSON.stringify(Object.fromEntries(cut.log.statuses))}, wrote again ${(healedMs / 1000).toFixed(1)} s after the partition ended; longest request ${(Math.max(cut.log.longestMs, free.log.longestMs) / 1000).toFixed(1)} s`,
      );
    }
  },
);
