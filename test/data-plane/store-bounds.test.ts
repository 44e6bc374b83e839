import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { json } from '../helpers/app.js';
import { callIndex, type TestIndex } from '../helpers/data-plane.js';
import { createAccount, createIndex } from '../helpers/factories.js';
import { createCluster, type TestCluster } from '../helpers/nodes.js';

/**
 * The bounds searchplane sets on its PostgreSQL sessions: a write never queues without limit
 * behind another session holding its index (a node cut off mid-write, say).
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL session bounds', () => {
  let cluster: TestCluster;
  let index: TestIndex;
  let holder: pg.Client;

  beforeEach(async () => {
    cluster = await createCluster(1, { SEARCHPLANE_PG_LOCK_TIMEOUT_MS: '300' });
    const app = cluster.nodes[0].app;
    index = await createIndex(app, await createAccount(app));
    holder = new pg.Client({ connectionString: cluster.store.databaseUrl });
    await holder.connect();
  });
  afterEach(async () => {
    await holder.end();
    await cluster.close();
  });

  const upsert = (id: string) =>
    callIndex(cluster.nodes[0].app, index.endpoint, 'upsert-data/ns', index.token, [
      { id, content: { title: `document ${id}` } },
    ]);

  it('a write that cannot take its index head lock in time answers 503 with Retry-After, and passes once the lock is free', async () => {
    expect((await upsert('first')).statusCode).toBe(200);
    // Another session holds the index's head row, as a node cut off inside its write would.
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM index_heads WHERE index_id = $1 FOR UPDATE', [index.id]);

    const blocked = await upsert('second');
    expect(blocked.statusCode).toBe(503);
    expect(blocked.headers['retry-after']).toBe('1');
    expect(json(blocked)).toMatchObject({ status: 503, code: 'service_unavailable' });

    await holder.query('ROLLBACK');
    expect((await upsert('second')).statusCode).toBe(200);
    const fetched = await callIndex(cluster.nodes[0].app, index.endpoint, 'fetch/ns', index.token, {
      ids: ['first', 'second'],
    });
    expect(json(fetched).result.map((doc: { id: string } | null) => doc?.id)).toEqual(['first', 'second']);
  });
});
