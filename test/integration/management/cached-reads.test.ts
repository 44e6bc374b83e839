import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AccountService } from '../../../src/services/account.service.js';
import { SERIES_TTL_MS } from '../../../src/services/search-index.service.js';
import { openStore } from '../../../src/store/database.js';
import { ReadCache } from '../../../src/store/read-cache.js';
import { basic, createTestApp, injectAs, json, type TestContext } from '../../helpers/app.js';
import { callIndex, type ManualClock, makeDocs, manualClock, setQuotas } from '../../helpers/data-plane.js';
import { createAccount, createIndex, type TestAccount } from '../../helpers/factories.js';

/**
 * `GET /v2/search/{id}` serves a kept serialization of the record with an incrementally kept
 * throughput series, and Basic auth remembers verified keys: every write must still show at the
 * very next request on this node.
 */
let ctx: TestContext;
let clock: ManualClock;

beforeAll(async () => {
  clock = manualClock(Date.UTC(2026, 10, 22, 14, 5, 30));
  ctx = await createTestApp({ clock: clock.now });
});
afterAll(async () => ctx.close());

const get = (account: TestAccount, id: string) => injectAs(ctx.app, 'GET', `/v2/search/${id}`, account.auth);

/** GETs a few times, so that the record, its series and the key are all cached. */
async function warm(account: TestAccount, id: string) {
  for (let i = 0; i < 3; i++) expect((await get(account, id)).statusCode).toBe(200);
  return json(await get(account, id));
}

describe('the cached record follows every write at once', () => {
  test('a renamed index shows its new name', async () => {
    const account = await createAccount(ctx.app);
    const index = await createIndex(ctx.app, account, { name: 'before' });
    expect((await warm(account, index.id)).name).toBe('before');
    const renamed = await injectAs(ctx.app, 'POST', `/v2/search/${index.id}/rename`, account.auth, { name: 'after' });
    expect(renamed.statusCode).toBe(200);
    expect(json(await get(account, index.id)).name).toBe('after');
  });

  test('reset-password: GET returns the new tokens, the stored ones', async () => {
    const account = await createAccount(ctx.app);
    const index = await createIndex(ctx.app, account);
    await warm(account, index.id);
    const reset = await injectAs(ctx.app, 'POST', `/v2/search/${index.id}/reset-password`, account.auth);
    expect(reset.statusCode).toBe(200);
    const after = json(await get(account, index.id));
    const stored = await ctx.store.db
      .selectFrom('search_indexes')
      .select(['token', 'read_only_token'])
      .where('id', '=', index.id)
      .executeTakeFirstOrThrow();
    expect(after.token).not.toBe(index.token);
    expect(after.read_only_token).not.toBe(index.read_only_token);
    expect({ token: after.token, read_only_token: after.read_only_token }).toEqual(stored);
    // The data plane agrees: the old token is refused, the new one works.
    expect((await callIndex(ctx.app, index.endpoint, 'info', index.token)).statusCode).toBe(401);
    expect((await callIndex(ctx.app, index.endpoint, 'info', after.token)).statusCode).toBe(200);
  });

  test('a quota changed directly in the store (a plan change, an operator) shows', async () => {
    const account = await createAccount(ctx.app);
    const index = await createIndex(ctx.app, account);
    expect((await warm(account, index.id)).max_daily_queries).toBe(-1);
    await setQuotas(ctx.store, index.id, { max_daily_queries: 1234, max_reads_per_request: 7 });
    expect(json(await get(account, index.id))).toMatchObject({ max_daily_queries: 1234, max_reads_per_request: 7 });
  });

  test('a deleted index is 404', async () => {
    const account = await createAccount(ctx.app);
    const index = await createIndex(ctx.app, account);
    await warm(account, index.id);
    expect((await injectAs(ctx.app, 'DELETE', `/v2/search/${index.id}`, account.auth)).statusCode).toBe(200);
    const gone = await get(account, index.id);
    expect(gone.statusCode).toBe(404);
    expect(json(gone).code).toBe('index_not_found');
  });

  test('another account still gets 404 for a record the owner has cached', async () => {
    const owner = await createAccount(ctx.app);
    const stranger = await createAccount(ctx.app);
    const index = await createIndex(ctx.app, owner);
    await warm(owner, index.id);
    await warm(stranger, (await createIndex(ctx.app, stranger)).id);
    const foreign = await get(stranger, index.id);
    expect(foreign.statusCode).toBe(404);
    expect(json(foreign).code).toBe('index_not_found');
  });

  test('the body is exactly what the record serializer writes (the same bytes as in the list)', async () => {
    const account = await createAccount(ctx.app);
    const index = await createIndex(ctx.app, account);
    ctx.app.services.usage.record(index.id, { queries: 2, updates: 1 });
    const body = (await get(account, index.id)).body;
    const list = await injectAs(ctx.app, 'GET', '/v2/search', account.auth);
    expect(list.body).toBe(`[${body}]`);
    expect((await get(account, index.id)).headers['content-type']).toBe('application/json; charset=utf-8');
  });

  test('usage on this node shows in throughput_vector within SERIES_TTL_MS, minute after minute', async () => {
    const account = await createAccount(ctx.app);
    const index = await createIndex(ctx.app, account);
    const last = async () => json(await get(account, index.id)).throughput_vector.slice(-3);
    await warm(account, index.id);
    expect((await callIndex(ctx.app, index.endpoint, 'upsert-data', index.token, makeDocs(3))).statusCode).toBe(200);
    expect((await callIndex(ctx.app, index.endpoint, 'search', index.token, { query: 'x', topK: 1 })).statusCode).toBe(
      200,
    );
    // The series read by warm() is reused for SERIES_TTL_MS, then read again.
    expect((await last()).map((point: { y: number }) => point.y)).toEqual([0, 0, 0]);
    clock.advance(SERIES_TTL_MS + 1);
    expect((await last()).map((point: { y: number }) => point.y)).toEqual([0, 0, 2]);
    clock.advance(60_000);
    expect((await last()).map((point: { y: number }) => point.y)).toEqual([0, 2, 0]);
    await ctx.app.services.usage.flush();
    expect((await callIndex(ctx.app, index.endpoint, 'search', index.token, { query: 'x', topK: 1 })).statusCode).toBe(
      200,
    );
    clock.advance(60_000);
    expect((await callIndex(ctx.app, index.endpoint, 'fetch', index.token, { ids: ['doc-1'] })).statusCode).toBe(200);
    const points = await last();
    expect(points.map((point: { y: number }) => point.y)).toEqual([2, 1, 1]);
    expect(points[2].x).toBe('2026-11-22 14:07:00.000 +0000 UTC');
  });
});

describe('a remembered API key follows every change of the account at once', () => {
  const list = (auth: string) => injectAs(ctx.app, 'GET', '/v2/search', auth);

  test('a rotated key is refused, the new one works', async () => {
    const account = await createAccount(ctx.app);
    for (let i = 0; i < 3; i++) expect((await list(account.auth)).statusCode).toBe(200);
    const rotated = await ctx.app.services.accounts.rotateKey(account.email);
    const refused = await list(account.auth);
    expect(refused.statusCode).toBe(401);
    expect(json(refused).code).toBe('unauthorized');
    expect((await list(basic(account.email, rotated.api_key))).statusCode).toBe(200);
  });

  test('a deleted account’s key is refused', async () => {
    const account = await createAccount(ctx.app);
    for (let i = 0; i < 3; i++) expect((await list(account.auth)).statusCode).toBe(200);
    await ctx.app.services.accounts.delete(account.email);
    const refused = await list(account.auth);
    expect(refused.statusCode).toBe(401);
    expect(json(refused).code).toBe('unauthorized');
  });

  test('a key replaced by the bootstrap (ensure) is refused', async () => {
    const account = await createAccount(ctx.app);
    expect((await list(account.auth)).statusCode).toBe(200);
    expect(await ctx.app.services.accounts.ensure(account.email, 'bootstrap-key-0123456789')).toBe('updated');
    expect((await list(account.auth)).statusCode).toBe(401);
    expect((await list(basic(account.email, 'bootstrap-key-0123456789'))).statusCode).toBe(200);
  });

  test('a key is still accepted after the cache entry expires (checked with scrypt again)', async () => {
    const account = await createAccount(ctx.app);
    expect((await list(account.auth)).statusCode).toBe(200);
    clock.advance(10 * 60_000);
    expect((await list(account.auth)).statusCode).toBe(200);
    expect((await list(basic(account.email, `${account.apiKey}x`))).statusCode).toBe(401);
  });

  test('a key rotated by another process on the same store (the CLI, another node) is refused', async () => {
    const account = await createAccount(ctx.app);
    for (let i = 0; i < 3; i++) expect((await list(account.auth)).statusCode).toBe(200);
    const other = openStore({ dataDir: ctx.dataDir, databaseUrl: ctx.databaseUrl });
    try {
      const accounts = new AccountService(other, {
        clock: clock.now,
        messagingDefaultPlan: 'free',
        cache: new ReadCache(() => other.changeToken()),
      });
      const rotated = await accounts.rotateKey(account.email);
      // PostgreSQL: the account row is read on every request, so at once. SQLite: within
      // FOREIGN_CHANGE_POLL_MS, when the server next reads the file's change counter.
      if (ctx.databaseUrl) expect((await list(account.auth)).statusCode).toBe(401);
      else await until(async () => (await list(account.auth)).statusCode === 401);
      expect((await list(basic(account.email, rotated.api_key))).statusCode).toBe(200);
    } finally {
      await other.close();
    }
  });
});

async function until(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
