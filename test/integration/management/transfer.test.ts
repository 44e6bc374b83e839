import { afterAll, beforeAll, expect, test } from 'vitest';
import { createApiKey } from '../../helpers/api-keys.js';
import { createTestApp, injectAs, json, type TestContext } from '../../helpers/app.js';
import { callIndex } from '../../helpers/data-plane.js';
import { createAccount, createIndex, type TestAccount } from '../../helpers/factories.js';

let ctx: TestContext;
let from: TestAccount;
let to: TestAccount;

beforeAll(async () => {
  ctx = await createTestApp();
  from = await createAccount(ctx.app);
  to = await createAccount(ctx.app);
});
afterAll(async () => ctx.close());

const transfer = (id: string, target: string, auth = from.auth) =>
  injectAs(ctx.app, 'POST', `/v2/search/${id}/transfer`, auth, { target_account: target });
const get = (id: string, auth: string) => injectAs(ctx.app, 'GET', `/v2/search/${id}`, auth);

test('the index moves with its documents, tokens and usage; the old owner gets 404', async () => {
  const index = await createIndex(ctx.app, from);
  const doc = { id: 'd1', content: { title: 'moving day' } };
  expect((await callIndex(ctx.app, index.endpoint, 'upsert-data', index.token, [doc])).statusCode).toBe(200);
  const limited = await createApiKey(ctx.app, from, { actions: ['*'], indexes: [index.id] });

  const response = await transfer(index.id, to.email);
  expect(response.statusCode).toBe(200);
  expect(json(response)).toBe('OK');

  for (const auth of [from.auth, limited.auth]) {
    const gone = await get(index.id, auth);
    expect(gone.statusCode).toBe(404);
    expect(json(gone).code).toBe('index_not_found');
  }
  expect(json(await injectAs(ctx.app, 'GET', '/v2/search', from.auth)).map((i: { id: string }) => i.id)).not.toContain(
    index.id,
  );
  const moved = json(await get(index.id, to.auth));
  expect(moved).toMatchObject({
    customer_id: to.email,
    id: index.id,
    name: index.name,
    endpoint: index.endpoint,
    token: index.token,
    read_only_token: index.read_only_token,
  });
  const fetched = await callIndex(ctx.app, index.endpoint, 'fetch', index.read_only_token, {
    ids: ['d1'],
    includeData: true,
  });
  expect(json(fetched).result).toEqual([{ id: 'd1', content: doc.content }]);
  await ctx.app.services.usage.flush();
  const stats = json(await injectAs(ctx.app, 'GET', `/v2/search/${index.id}/stats`, to.auth));
  expect(stats.daily_update_count).toBe(1);
});

test('to an unknown account: 404 account_not_found; to itself: 400; nothing moves', async () => {
  const index = await createIndex(ctx.app, from);
  const unknown = await transfer(index.id, 'nobody@example.com');
  expect(unknown.statusCode).toBe(404);
  expect(json(unknown).code).toBe('account_not_found');
  const self = await transfer(index.id, from.email);
  expect(self.statusCode).toBe(400);
  expect(json(self).code).toBe('invalid_request');
  expect((await get(index.id, from.auth)).statusCode).toBe(200);
});

test('the target already has an index of that name: 409 index_name_taken, nothing moves', async () => {
  const index = await createIndex(ctx.app, from, { name: 'same-name' });
  await createIndex(ctx.app, to, { name: 'same-name' });
  const response = await transfer(index.id, to.email);
  expect(response.statusCode).toBe(409);
  expect(json(response).code).toBe('index_name_taken');
  expect(json(await get(index.id, from.auth)).customer_id).toBe(from.email);
});

test('a free index to an account with its free allowance: 409 free_index_limit', async () => {
  const receiver = await createAccount(ctx.app);
  await createIndex(ctx.app, receiver, { type: 'free' });
  const giver = await createAccount(ctx.app);
  const free = await createIndex(ctx.app, giver, { type: 'free' });
  const response = await transfer(free.id, receiver.email, giver.auth);
  expect(response.statusCode).toBe(409);
  expect(json(response).code).toBe('free_index_limit');
});

test("another account's index cannot be transferred by anyone but its owner (404)", async () => {
  const index = await createIndex(ctx.app, to);
  const response = await transfer(index.id, from.email);
  expect(response.statusCode).toBe(404);
  expect(json(response).code).toBe('index_not_found');
  expect(json(await get(index.id, to.auth)).customer_id).toBe(to.email);
});

test('the transfer is in the giver’s audit log with its target account', async () => {
  const index = await createIndex(ctx.app, from);
  expect((await transfer(index.id, to.email)).statusCode).toBe(200);
  const { data } = json(await injectAs(ctx.app, 'GET', '/v2/auditlogs', from.auth));
  expect(data[0]).toMatchObject({ action: 'index.transfer', target: index.id, details: { target_account: to.email } });
});
