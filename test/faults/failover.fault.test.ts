import { afterAll, beforeAll, expect, test } from 'vitest';
import { api } from '../blackbox/support/http-client.js';
import { killServers, type ServerProcess, startServer } from '../blackbox/support/searchplane-process.js';
import { type Cluster, PostgresClusters, postgresBinaries } from './support/pg-cluster.js';
import { missingIds, resumedAfter, startWriter, until } from './support/writers.js';

/**
 * A PostgreSQL failover under load, for real: a primary and a streaming standby made with
 * pg_basebackup, synchronous commit to it, two searchplane nodes whose DATABASE_URL names both
 * hosts, a writer on each. The primary is killed (-9) and the standby promoted 3 s later: every write
 * acknowledged before, during and after is then on both nodes, and writes resume within 30 s.
 */
const bin = postgresBinaries();
const auth = { email: 'failover@example.com', apiKey: 'failover-key-0123456789abcdef' };

let clusters: PostgresClusters;
let primary: Cluster;
let standby: Cluster;
beforeAll(async () => {
  if (!bin) return;
  clusters = new PostgresClusters(bin);
  primary = await clusters.primary('primary', ['synchronous_commit = on']);
  clusters.sql(primary, "CREATE ROLE searchplane LOGIN PASSWORD 'searchplane'");
  clusters.sql(primary, 'CREATE DATABASE searchplane OWNER searchplane');
  standby = await clusters.standby(primary, 'standby1');
  // Synchronous from now on: with it set before the standby exists, every commit would wait.
  clusters.sql(primary, "ALTER SYSTEM SET synchronous_standby_names = 'FIRST 1 (standby1)'");
  clusters.sql(primary, 'SELECT pg_reload_conf()');
  await until(
    () =>
      clusters.sql(primary, "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby1'") ===
      'sync',
    30_000,
    'the standby streams synchronously',
  );
});
afterAll(async () => {
  await killServers();
  clusters?.cleanup();
});

test.skipIf(!bin)(
  'nodes follow a promoted standby: nothing acknowledged is lost, writes resume within 30 s',
  async () => {
    const databaseUrl = `postgres://searchplane:searchplane@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/searchplane`;
    const env = {
      SEARCHPLANE_ADMIN_EMAIL: auth.email,
      SEARCHPLANE_ADMIN_API_KEY: auth.apiKey,
      DATABASE_URL: databaseUrl,
    };
    const dataDirOf = (name: string) => `${clusters.root}/${name}-data`;
    const nodes: ServerProcess[] = [];
    for (const name of ['a', 'b']) nodes.push(await startServer(['--data-dir', dataDirOf(name)], env));
    const created = await api(nodes[0].url, 'POST', '/v2/search', {
      auth,
      body: { name: 'failover', region: 'eu-west-1', type: 'payg' },
    });
    expect(created.status).toBe(200);
    const { endpoint, token } = created.body;

    const writers = nodes.map((node, i) => startWriter(node.url, endpoint, token, `n${i}-`));
    await until(() => writers.every((writer) => writer.log.acknowledged.length >= 100), 60_000, 'writes before');

    const before = writers.map((writer) => writer.log.acknowledged.length);
    const crashedAt = performance.now();
    clusters.crash(primary);
    // As a failover manager would: promote once the primary is found gone, a few seconds later.
    // Meanwhile the nodes have no writable host and answer writes 503.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    clusters.promote(standby);
    // Writes resume on every node: each acknowledges new ones within 30 s of the crash.
    await until(
      () => writers.every((writer, i) => writer.log.acknowledged.length >= before[i] + 20),
      30_000,
      'writes resume on both nodes',
    );
    const resumedMs = writers.map((writer) => resumedAfter(writer.log, crashedAt));
    await Promise.all(writers.map((writer) => writer.stop()));

    expect(clusters.sql(standby, 'SELECT pg_is_in_recovery()')).toBe('f');
    const acknowledged = writers.flatMap((writer) => writer.log.acknowledged);
    for (const node of nodes) expect(await missingIds(node.url, endpoint, token, acknowledged)).toEqual([]);
    // And in the database itself, not only in the nodes' copies.
    const stored = Number(
      clusters.sql(
        standby,
        `SELECT count(*) FROM index_documents WHERE id IN (${acknowledged.map((id) => `'${id}'`).join(',')})`,
        'searchplane',
      ),
    );
    expect(stored).toBe(acknowledged.length);
    // No request hung: each had an answer, 200 or 503.
    for (const writer of writers)
      expect([...writer.log.statuses.keys()].every((s) => s === 200 || s === 503)).toBe(true);
    if (process.env.FAULT_VERBOSE) {
      console.log(
        `failover: ${acknowledged.length} writes acknowledged; acknowledged again ${resumedMs.map((ms) => (ms === undefined ? 'without a refusal' : `${(ms / 1000).toFixed(1)} s`)).join(' and ')} after the crash (promoted at 3 s); answers ${writers.map((writer) => JSON.stringify(Object.fromEntries(writer.log.statuses))).join(' ')}; longest request ${Math.max(...writers.map((writer) => writer.log.longestMs)).toFixed(0)} ms`,
      );
    }
  },
);
