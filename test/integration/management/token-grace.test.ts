import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestApp, injectAs, json, type TestContext } from '../../helpers/app.js';
import { callIndex, manualClock } from '../../helpers/data-plane.js';
import { createAccount, createIndex, type TestAccount } from '../../helpers/factories.js';

const clock = manualClock(Date.parse('2026-11-22T12:00:00Z'));
let ctx: TestContext;
let account: TestAccount;

beforeAll(async () => {
  ctx = await createTestApp({ clock: clock.now });
  account = await createAccount(ctx.app);
});
afterAll(async () => ctx.close());

const info = async (endpoint: string, token: string) => (await callIndex(ctx.app, endpoint, 'info', token)).statusCode;
const upsert = async (endpoint: string, token: string) =>
  (await callIndex(ctx.app, endpoint, 'upsert-data', token, [{ id: 'a', content: { t: 'x' } }])).statusCode;
const reset = (id: string, body?: unknown) =>
  injectAs(ctx.app, 'POST', `/v2/search/${id}/reset-password`, account.auth, body);
const record = async (id: string) => json(await injectAs(ctx.app, 'GET', `/v2/search/${id}`, account.auth));

test('with grace_seconds the old tokens keep their rights until then, and fail after', async () => {
  const old = await createIndex(ctx.app, account);
  const response = await reset(old.id, { grace_seconds: 60 });
  expect(response.statusCode).toBe(200);
  expect(json(response)).toBe('OK');
  const fresh = await record(old.id);
  expect(fresh.token).not.toBe(old.token);
  expect(fresh.read_only_token).not.toBe(old.read_only_token);

  clock.advance(59_000);
  expect(await info(old.endpoint, old.token)).toBe(200);
  expect(await upsert(old.endpoint, old.token)).toBe(200);
  expect(await info(old.endpoint, old.read_only_token)).toBe(200);
  // The old read-only token stays read-only.
  expect(await upsert(old.endpoint, old.read_only_token)).toBe(403);
  expect(await info(old.endpoint, fresh.token)).toBe(200);

  clock.advance(1_000);
  expect(await info(old.endpoint, old.token)).toBe(401);
  expect(await info(old.endpoint, old.read_only_token)).toBe(401);
  expect(await info(old.endpoint, fresh.token)).toBe(200);
  expect(await info(old.endpoint, fresh.read_only_token)).toBe(200);
});

test('without a body, or with grace_seconds 0, the old tokens fail at once', async () => {
  for (const body of [undefined, { grace_seconds: 0 }, {}]) {
    const index = await createIndex(ctx.app, account);
    expect((await reset(index.id, body)).statusCode).toBe(200);
    expect(await info(index.endpoint, index.token)).toBe(401);
    expect(await info(index.endpoint, index.read_only_token)).toBe(401);
  }
});

test('a second rotation ends the first one’s grace at once; the tokens it replaced get their own', async () => {
  const first = await createIndex(ctx.app, account);
  expect((await reset(first.id, { grace_seconds: 600 })).statusCode).toBe(200);
  const second = await record(first.id);
  expect((await reset(first.id, { grace_seconds: 600 })).statusCode).toBe(200);
  expect(await info(first.endpoint, first.token)).toBe(401);
  expect(await info(first.endpoint, second.token)).toBe(200);
  expect((await reset(first.id)).statusCode).toBe(200);
  expect(await info(first.endpoint, second.token)).toBe(401);
});

test.each([
  ['negative', { grace_seconds: -1 }],
  ['more than a day', { grace_seconds: 86_401 }],
  ['not an integer', { grace_seconds: 1.5 }],
  ['a string', { grace_seconds: '60' }],
  ['an unknown field', { grace: 60 }],
])('grace_seconds %s is 400 invalid_request, and nothing rotates', async (_label, body) => {
  const index = await createIndex(ctx.app, account);
  const response = await reset(index.id, body);
  expect(response.statusCode).toBe(400);
  expect(json(response).code).toBe('invalid_request');
  expect((await record(index.id)).token).toBe(index.token);
});

test('the previous tokens are never part of the record', async () => {
  const index = await createIndex(ctx.app, account);
  await reset(index.id, { grace_seconds: 60 });
  const body = (await injectAs(ctx.app, 'GET', `/v2/search/${index.id}`, account.auth)).body;
  expect(body).not.toContain(index.token);
  expect(body).not.toContain('previous');
});
