import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { SERIES_TTL_MS } from '../../../src/services/search-index.service.js';
import { basic, injectAs, json } from '../../helpers/app.js';
import { callIndex, manualClock, setQuotas } from '../../helpers/data-plane.js';
import { createAccount, createIndex, type TestAccount } from '../../helpers/factories.js';
import { createCluster, type TestCluster } from '../../helpers/nodes.js';

/**
 * Two nodes on one PostgreSQL database: what one node caches for `GET /v2/search/{id}` and Basic
 * auth never hides a change made through the other. Only meaningful on PostgreSQL.
 */
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe.skipIf(!onPostgres)('management reads across nodes', () => {
  let cluster: TestCluster;
  let a: FastifyInstance;
  let b: FastifyInstance;
  const clock = manualClock(Date.UTC(2026, 10, 23, 12, 0, 10));

  beforeEach(async () => {
    cluster = await createCluster(2, {}, clock.now);
    [a, b] = cluster.nodes.map((node) => node.app);
  });
  afterEach(async () => {
    await cluster.close();
  });

  const get = (node: FastifyInstance, account: TestAccount, id: string) =>
    injectAs(node, 'GET', `/v2/search/${id}`, account.auth);
  async function warm(node: FastifyInstance, account: TestAccount, id: string) {
    for (let i = 0; i < 3; i++) expect((await get(node, account, id)).statusCode).toBe(200);
  }

  test('rename, reset-password and quota changes on one node show on the other at once', async () => {
    const account = await createAccount(a);
    const index = await createIndex(a, account, { name: 'first' });
    await warm(b, account, index.id);

    expect(
      (await injectAs(a, 'POST', `/v2/search/${index.id}/rename`, account.auth, { name: 'second' })).statusCode,
    ).toBe(200);
    expect(json(await get(b, account, index.id)).name).toBe('second');

    expect((await injectAs(a, 'POST', `/v2/search/${index.id}/reset-password`, account.auth)).statusCode).toBe(200);
    const onA = json(await get(a, account, index.id));
    const onB = json(await get(b, account, index.id));
    expect(onA.token).not.toBe(index.token);
    expect(onB.token).toBe(onA.token);
    expect(onB.read_only_token).toBe(onA.read_only_token);

    await setQuotas(cluster.store.store, index.id, { max_writes_per_second: 5 });
    expect(json(await get(b, account, index.id)).max_writes_per_second).toBe(5);

    expect((await injectAs(a, 'DELETE', `/v2/search/${index.id}`, account.auth)).statusCode).toBe(200);
    expect((await get(b, account, index.id)).statusCode).toBe(404);
  });

  test('a key rotated or an account deleted on one node is refused on the other at once', async () => {
    const account = await createAccount(a);
    const list = (node: FastifyInstance, auth: string) => injectAs(node, 'GET', '/v2/search', auth);
    for (let i = 0; i < 3; i++) expect((await list(b, account.auth)).statusCode).toBe(200);

    const rotated = await a.services.accounts.rotateKey(account.email);
    expect((await list(b, account.auth)).statusCode).toBe(401);
    const newAuth = basic(account.email, rotated.api_key);
    for (let i = 0; i < 3; i++) expect((await list(b, newAuth)).statusCode).toBe(200);

    await a.services.accounts.delete(account.email);
    expect((await list(b, newAuth)).statusCode).toBe(401);
  });

  test('another node’s traffic reaches throughput_vector after its flush and SERIES_TTL_MS', async () => {
    const account = await createAccount(a);
    const index = await createIndex(a, account);
    const lastPoint = async (node: FastifyInstance) =>
      json(await get(node, account, index.id)).throughput_vector.at(-1).y;
    expect(await lastPoint(b)).toBe(0);

    const search = await callIndex(a, index.endpoint, 'search', index.token, { query: 'anything', topK: 1 });
    expect(search.statusCode).toBe(200);
    // Node a sees its own traffic once its series is read again, node b once a has flushed it too.
    clock.advance(SERIES_TTL_MS + 1);
    expect(await lastPoint(a)).toBe(1);
    await a.services.usage.flush();
    clock.advance(SERIES_TTL_MS + 1);
    expect(await lastPoint(b)).toBe(1);
    expect(await lastPoint(a)).toBe(1);
  });
});
