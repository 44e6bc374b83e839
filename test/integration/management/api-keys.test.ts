import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApiKey } from '../../helpers/api-keys.js';
import { basic, createTestApp, injectAs, json, type TestContext } from '../../helpers/app.js';
import { createAccount, createIndex, type TestAccount } from '../../helpers/factories.js';

let now = Date.parse('2026-11-22T12:00:00Z');
let ctx: TestContext;
let owner: TestAccount;

beforeAll(async () => {
  ctx = await createTestApp({ clock: () => now });
  owner = await createAccount(ctx.app);
});
afterAll(async () => ctx.close());

const nowSeconds = () => Math.floor(now / 1000);

describe('POST /v2/keys', () => {
  test('answers the key once with its secret; lists never show it; the store keeps only a hash', async () => {
    const response = await injectAs(ctx.app, 'POST', '/v2/keys', owner.auth, {
      name: 'deploy',
      actions: ['indexes.read', 'stats.read'],
    });
    expect(response.statusCode).toBe(200);
    const created = json(response);
    expect(created).toEqual({
      id: expect.any(String),
      name: 'deploy',
      actions: ['indexes.read', 'stats.read'],
      indexes: null,
      expires_at: null,
      created_at: nowSeconds(),
      key: expect.stringMatching(/^sp_/),
    });
    const listed = json(await injectAs(ctx.app, 'GET', '/v2/keys', owner.auth));
    const { key: _secret, ...withoutSecret } = created;
    expect(listed).toContainEqual(withoutSecret);
    expect(JSON.stringify(listed)).not.toContain(created.key);

    const row = await ctx.store.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.key_hash).toMatch(/^scrypt\$/);
    expect(JSON.stringify(row)).not.toContain(created.key.slice(-43));

    // HTTP Basic with the account email and the new key.
    expect((await injectAs(ctx.app, 'GET', '/v2/search', basic(owner.email, created.key))).statusCode).toBe(200);
  });

  test('a second key of the same name is 409 api_key_name_taken', async () => {
    await createApiKey(ctx.app, owner, { name: 'twice', actions: ['*'] });
    const again = await injectAs(ctx.app, 'POST', '/v2/keys', owner.auth, { name: 'twice', actions: ['*'] });
    expect(again.statusCode).toBe(409);
    expect(json(again).code).toBe('api_key_name_taken');
  });

  test.each([
    ['an unknown action', { name: 'k', actions: ['indexes.destroy'] }],
    ['no action', { name: 'k', actions: [] }],
    ['a bad name', { name: 'has space', actions: ['*'] }],
    ['an expiry in the past', { name: 'k', actions: ['*'], expires_at: 1 }],
    ['an unknown field', { name: 'k', actions: ['*'], scopes: [] }],
  ])('%s is 400', async (_label, body) => {
    const response = await injectAs(ctx.app, 'POST', '/v2/keys', owner.auth, body);
    expect(response.statusCode).toBe(400);
    expect(json(response).code).toBe('invalid_request');
  });

  test("another account's index cannot be named: 404 index_not_found", async () => {
    const other = await createAccount(ctx.app);
    const theirs = await createIndex(ctx.app, other);
    const response = await injectAs(ctx.app, 'POST', '/v2/keys', owner.auth, {
      name: 'theirs',
      actions: ['*'],
      indexes: [theirs.id],
    });
    expect(response.statusCode).toBe(404);
    expect(json(response).code).toBe('index_not_found');
  });

  test('a key cannot make a key with more actions, indexes or lifetime than its own', async () => {
    const index = await createIndex(ctx.app, owner);
    const limited = await createApiKey(ctx.app, owner, {
      actions: ['keys.write', 'indexes.read'],
      indexes: [index.id],
      expires_at: nowSeconds() + 3600,
    });
    const beyond = [
      { actions: ['indexes.write'], indexes: [index.id], expires_at: nowSeconds() + 60 },
      { actions: ['*'], indexes: [index.id], expires_at: nowSeconds() + 60 },
      { actions: ['indexes.read'], expires_at: nowSeconds() + 60 },
      { actions: ['indexes.read'], indexes: [index.id] },
      { actions: ['indexes.read'], indexes: [index.id], expires_at: nowSeconds() + 7200 },
    ];
    for (const body of beyond) {
      const response = await injectAs(ctx.app, 'POST', '/v2/keys', limited.auth, { name: 'beyond', ...body });
      expect(response.statusCode, JSON.stringify(body)).toBe(403);
      expect(json(response).code).toBe('key_grant_exceeds_own');
    }
    const within = await injectAs(ctx.app, 'POST', '/v2/keys', limited.auth, {
      name: 'within',
      actions: ['indexes.read'],
      indexes: [index.id],
      expires_at: nowSeconds() + 60,
    });
    expect(within.statusCode).toBe(200);
  });
});

describe('using a key', () => {
  test('a key without the action is 403 with a code naming it; the account key has every action', async () => {
    const reader = await createApiKey(ctx.app, owner, { actions: ['indexes.read'] });
    const create = await injectAs(ctx.app, 'POST', '/v2/search', reader.auth, {
      name: 'nope',
      region: 'us-central1',
      type: 'payg',
    });
    expect(create.statusCode).toBe(403);
    expect(json(create).code).toBe('missing_action_indexes_write');
    expect((await injectAs(ctx.app, 'GET', '/v2/keys', reader.auth)).statusCode).toBe(403);
    expect(json(await injectAs(ctx.app, 'GET', '/v2/keys', reader.auth)).code).toBe('missing_action_keys_read');
    // Nothing was created.
    const names = json(await injectAs(ctx.app, 'GET', '/v2/search', owner.auth)).map((i: { name: string }) => i.name);
    expect(names).not.toContain('nope');
  });

  test('wildcards: `*` and `<group>.*`', async () => {
    const all = await createApiKey(ctx.app, owner, { actions: ['*'] });
    const messaging = await createApiKey(ctx.app, owner, { actions: ['messaging.*'] });
    expect((await injectAs(ctx.app, 'GET', '/v2/keys', all.auth)).statusCode).toBe(200);
    const users = await injectAs(ctx.app, 'GET', '/v2/messaging/users', messaging.auth);
    expect(users.statusCode).toBe(200);
    const id = json(users)[0].id;
    expect((await injectAs(ctx.app, 'POST', `/v2/messaging/disable-prodpack/${id}`, messaging.auth)).statusCode).toBe(
      200,
    );
    expect(json(await injectAs(ctx.app, 'GET', '/v2/search', messaging.auth)).code).toBe('missing_action_indexes_read');
  });

  test('a key limited to indexes sees only those, and no account-wide route', async () => {
    const mine = await createIndex(ctx.app, owner);
    const other = await createIndex(ctx.app, owner);
    const limited = await createApiKey(ctx.app, owner, { actions: ['*'], indexes: [mine.id] });
    const listed = json(await injectAs(ctx.app, 'GET', '/v2/search', limited.auth));
    expect(listed.map((index: { id: string }) => index.id)).toEqual([mine.id]);
    expect((await injectAs(ctx.app, 'GET', `/v2/search/${mine.id}`, limited.auth)).statusCode).toBe(200);
    for (const [method, url] of [
      ['GET', `/v2/search/${other.id}`],
      ['GET', `/v2/search/${other.id}/stats`],
      ['DELETE', `/v2/search/${other.id}`],
      ['POST', `/v2/search/${other.id}/reset-password`],
    ] as const) {
      const response = await injectAs(ctx.app, method, url, limited.auth);
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(json(response).code).toBe('index_not_found');
    }
    for (const [method, url, body] of [
      ['POST', '/v2/search', { name: 'limited-new', region: 'us-central1', type: 'payg' }],
      ['GET', '/v2/search/stats', undefined],
    ] as const) {
      const response = await injectAs(ctx.app, method, url, limited.auth, body);
      expect(response.statusCode, `${method} ${url}`).toBe(403);
      expect(json(response).code).toBe('key_limited_to_indexes');
    }
    expect((await injectAs(ctx.app, 'GET', `/v2/search/${other.id}`, owner.auth)).statusCode).toBe(200);
  });

  test('an expired key is 401 from its expiry on', async () => {
    const key = await createApiKey(ctx.app, owner, { actions: ['*'], expires_at: nowSeconds() + 60 });
    expect((await injectAs(ctx.app, 'GET', '/v2/search', key.auth)).statusCode).toBe(200);
    now += 60_000;
    const expired = await injectAs(ctx.app, 'GET', '/v2/search', key.auth);
    expect(expired.statusCode).toBe(401);
    expect(json(expired).code).toBe('unauthorized');
    expect(expired.headers['www-authenticate']).toBe('Basic realm="searchplane"');
  });

  test('a deleted key is 401 at the next request, although it was just verified', async () => {
    const key = await createApiKey(ctx.app, owner, { actions: ['*'] });
    for (let i = 0; i < 2; i++) expect((await injectAs(ctx.app, 'GET', '/v2/search', key.auth)).statusCode).toBe(200);
    const deleted = await injectAs(ctx.app, 'DELETE', `/v2/keys/${key.id}`, owner.auth);
    expect(deleted.statusCode).toBe(200);
    expect(json(deleted)).toBe('OK');
    expect((await injectAs(ctx.app, 'GET', '/v2/search', key.auth)).statusCode).toBe(401);
    const again = await injectAs(ctx.app, 'DELETE', `/v2/keys/${key.id}`, owner.auth);
    expect(again.statusCode).toBe(404);
    expect(json(again).code).toBe('api_key_not_found');
    // The account key verified before still works.
    expect((await injectAs(ctx.app, 'GET', '/v2/search', owner.auth)).statusCode).toBe(200);
  });

  test("a key works only with its own account's email; another account cannot delete it", async () => {
    const other = await createAccount(ctx.app);
    const key = await createApiKey(ctx.app, owner, { actions: ['*'] });
    expect((await injectAs(ctx.app, 'GET', '/v2/search', basic(other.email, key.key))).statusCode).toBe(401);
    const theirs = await injectAs(ctx.app, 'DELETE', `/v2/keys/${key.id}`, other.auth);
    expect(theirs.statusCode).toBe(404);
    expect((await injectAs(ctx.app, 'GET', '/v2/search', key.auth)).statusCode).toBe(200);
  });

  test('deleting the account removes its keys', async () => {
    const gone = await createAccount(ctx.app);
    const key = await createApiKey(ctx.app, gone, { actions: ['*'] });
    await ctx.app.services.accounts.delete(gone.email);
    expect((await injectAs(ctx.app, 'GET', '/v2/search', key.auth)).statusCode).toBe(401);
    const rows = await ctx.store.db.selectFrom('api_keys').select('id').where('id', '=', key.id).execute();
    expect(rows).toEqual([]);
  });
});
