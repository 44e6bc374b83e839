import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { IdempotencyService } from '../../../src/services/idempotency.service.js';
import { createTestApp, injectAs, json, type TestContext } from '../../helpers/app.js';
import { createAccount, type TestAccount } from '../../helpers/factories.js';

let now = Date.parse('2026-11-22T12:00:00Z');
let ctx: TestContext;
let account: TestAccount;

beforeAll(async () => {
  ctx = await createTestApp({ clock: () => now });
  account = await createAccount(ctx.app);
});
afterAll(async () => ctx.close());

const create = (key: string | undefined, body: object, auth = account.auth): Promise<LightMyRequestResponse> =>
  ctx.app.inject({
    method: 'POST',
    url: '/v2/search',
    headers: { authorization: auth, ...(key === undefined ? {} : { 'idempotency-key': key }) },
    payload: { region: 'us-central1', type: 'payg', ...body },
  });

const namesOf = async (auth = account.auth) =>
  json(await injectAs(ctx.app, 'GET', '/v2/search', auth)).map((index: { name: string }) => index.name);

test('the same key and body answer the first answer again, and create one index', async () => {
  const first = await create('retry-1', { name: 'once' });
  expect(first.statusCode).toBe(200);
  const again = await create('retry-1', { name: 'once' });
  expect(again.statusCode).toBe(200);
  expect(json(again)).toEqual(json(first));
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(first.headers['idempotent-replayed']).toBeUndefined();
  expect((await namesOf()).filter((name: string) => name === 'once')).toHaveLength(1);
});

test('the same body with its fields in another order is the same request', async () => {
  const first = await create('retry-order', { name: 'ordered' });
  const again = await ctx.app.inject({
    method: 'POST',
    url: '/v2/search',
    headers: { authorization: account.auth, 'idempotency-key': 'retry-order', 'content-type': 'application/json' },
    payload: JSON.stringify({ type: 'payg', name: 'ordered', region: 'us-central1' }),
  });
  expect(again.statusCode).toBe(200);
  expect(json(again).id).toBe(json(first).id);
});

test('the same key with another body is 409 idempotency_key_reused, and creates nothing', async () => {
  expect((await create('retry-2', { name: 'first-body' })).statusCode).toBe(200);
  const other = await create('retry-2', { name: 'other-body' });
  expect(other.statusCode).toBe(409);
  expect(json(other).code).toBe('idempotency_key_reused');
  expect(await namesOf()).not.toContain('other-body');
});

test('a failed first request keeps nothing: the same key runs again', async () => {
  expect((await create(undefined, { name: 'taken' })).statusCode).toBe(200);
  const refused = await create('retry-3', { name: 'taken' });
  expect(refused.statusCode).toBe(409);
  expect(json(refused).code).toBe('index_name_taken');
  const id = json(await injectAs(ctx.app, 'GET', '/v2/search', account.auth)).find(
    (index: { name: string }) => index.name === 'taken',
  ).id;
  expect((await injectAs(ctx.app, 'DELETE', `/v2/search/${id}`, account.auth)).statusCode).toBe(200);
  expect((await create('retry-3', { name: 'taken' })).statusCode).toBe(200);
});

test('after 24 hours a key is new again', async () => {
  const first = json(await create('retry-4', { name: 'daily' }));
  now += 24 * 60 * 60 * 1000 + 1;
  const late = await create('retry-4', { name: 'daily-2' });
  expect(late.statusCode).toBe(200);
  expect(json(late).id).not.toBe(first.id);
});

test('keys belong to an account: another account with the same key creates its own index', async () => {
  const other = await createAccount(ctx.app);
  const mine = json(await create('shared-key', { name: 'mine' }));
  const theirs = await create('shared-key', { name: 'mine' }, other.auth);
  expect(theirs.statusCode).toBe(200);
  expect(json(theirs).id).not.toBe(mine.id);
  expect(json(theirs).customer_id).toBe(other.email);
});

test('while the first request runs, the key is 409 idempotency_request_in_progress', async () => {
  const body = { name: 'running', region: 'us-central1', type: 'payg' };
  await ctx.store.db
    .insertInto('idempotency_keys')
    .values({
      account_email: account.email,
      key: 'retry-5',
      fingerprint: IdempotencyService.fingerprint('POST', '/v2/search', {}, body),
      status: null,
      body: null,
      created_at: now,
    })
    .execute();
  const response = await create('retry-5', body);
  expect(response.statusCode).toBe(409);
  expect(json(response).code).toBe('idempotency_request_in_progress');
  expect(response.headers['retry-after']).toBe('1');
});

test.each([
  ['empty', ''],
  ['with a space', 'a b'],
  ['longer than 255 characters', 'k'.repeat(256)],
])('a key %s is 400 invalid_request', async (_label, key) => {
  const response = await create(key, { name: 'bad-key' });
  expect(response.statusCode).toBe(400);
  expect(json(response).code).toBe('invalid_request');
});
