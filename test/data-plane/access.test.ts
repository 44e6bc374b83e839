import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createTestApp, json, type TestContext } from '../helpers/app.js';
import { callIndex, createAccountWithIndex, type TestIndex } from '../helpers/data-plane.js';

let ctx: TestContext;
let index: TestIndex;
let other: TestIndex;

beforeAll(async () => {
  ctx = await createTestApp();
  index = (await createAccountWithIndex(ctx.app)).index;
  other = (await createAccountWithIndex(ctx.app)).index;
});
afterAll(async () => ctx.close());

/** Every data-plane route with a body that succeeds for a full token. */
const ROUTES: { route: string; path: string; body: unknown; readOnlyAllowed: boolean }[] = [
  {
    route: 'upsert-data',
    path: 'upsert-data/matrix',
    body: [{ id: 'm1', content: { t: 'x' } }],
    readOnlyAllowed: false,
  },
  { route: 'search', path: 'search/matrix', body: { query: 'x', topK: 5 }, readOnlyAllowed: true },
  { route: 'fetch', path: 'fetch/matrix', body: { ids: ['seed'] }, readOnlyAllowed: true },
  { route: 'delete', path: 'delete/matrix', body: { ids: ['nothing'] }, readOnlyAllowed: false },
  { route: 'range', path: 'range/matrix', body: { cursor: '', limit: 10 }, readOnlyAllowed: true },
  { route: 'reset', path: 'reset/matrix', body: [], readOnlyAllowed: false },
  { route: 'delete-namespace', path: 'delete-namespace/matrix', body: [], readOnlyAllowed: false },
  { route: 'info', path: 'info', body: [], readOnlyAllowed: true },
  { route: 'list-namespaces', path: 'list-namespaces', body: [], readOnlyAllowed: true },
];

type Credential = 'none' | 'malformed' | 'wrong' | 'other index' | 'read-only' | 'read-write';
const tokenFor: Record<Credential, () => string | undefined> = {
  none: () => undefined,
  malformed: () => 'not-a-bearer-header',
  wrong: () => 'x'.repeat(43),
  'other index': () => other.token,
  'read-only': () => index.read_only_token,
  'read-write': () => index.token,
};

function request(credential: Credential, path: string, body: unknown) {
  if (credential === 'malformed') {
    return ctx.app.inject({
      method: 'POST',
      url: `/indexes/${index.endpoint}/${path}`,
      headers: { authorization: `Basic ${Buffer.from(`a:${index.token}`).toString('base64')}` },
      payload: body as object,
    });
  }
  return callIndex(ctx.app, index.endpoint, path, tokenFor[credential](), body);
}

describe.each<Credential>(['none', 'malformed', 'wrong', 'other index', 'read-only', 'read-write'])(
  'with %s credentials',
  (credential) => {
    beforeEach(async () => {
      // Every route finds something to act on: the namespace exists and holds a document.
      const seeded = await callIndex(ctx.app, index.endpoint, 'upsert-data/matrix', index.token, [
        { id: 'seed', content: { t: 'x' } },
      ]);
      expect(seeded.statusCode).toBe(200);
    });

    test.each(ROUTES)('POST /$route', async ({ route, path, body, readOnlyAllowed }) => {
      const response = await request(credential, path, body);
      if (credential === 'read-write' || (credential === 'read-only' && readOnlyAllowed)) {
        expect(response.statusCode).toBe(200);
        expect(Object.keys(json(response))).toEqual(['result']);
      } else if (credential === 'read-only') {
        expect(response.statusCode).toBe(403);
        expect(json(response)).toEqual({
          error: `Forbidden: /${route} is not allowed with a read-only token`,
          status: 403,
          code: 'forbidden',
        });
      } else {
        expect(response.statusCode).toBe(401);
        expect(json(response)).toEqual({
          error: 'Unauthorized: Invalid auth token',
          status: 401,
          code: 'unauthorized',
        });
        expect(response.headers['www-authenticate']).toBe('Bearer realm="searchplane"');
      }
    });
  },
);

test('a read-only token cannot change data: documents are untouched after refused writes', async () => {
  await callIndex(ctx.app, index.endpoint, 'upsert-data/ro', index.token, [{ id: 'keep', content: { t: 'x' } }]);
  for (const [path, body] of [
    ['upsert-data/ro', [{ id: 'new', content: { t: 'y' } }]],
    ['delete/ro', { ids: ['keep'] }],
    ['reset/ro', []],
    ['delete-namespace/ro', []],
  ] as const) {
    expect((await callIndex(ctx.app, index.endpoint, path, index.read_only_token, body)).statusCode).toBe(403);
  }
  const fetched = await callIndex(ctx.app, index.endpoint, 'fetch/ro', index.read_only_token, { ids: ['keep', 'new'] });
  expect(json(fetched).result).toEqual([{ id: 'keep' }, null]);
});

test('after reset-password the old tokens fail at once and the new ones work on the same data', async () => {
  const { account, index: rotated } = await createAccountWithIndex(ctx.app);
  expect(
    (await callIndex(ctx.app, rotated.endpoint, 'upsert-data', rotated.token, [{ id: 'a', content: { t: 'x' } }]))
      .statusCode,
  ).toBe(200);
  const reset = await ctx.app.inject({
    method: 'POST',
    url: `/v2/search/${rotated.id}/reset-password`,
    headers: { authorization: account.auth },
  });
  expect(reset.statusCode).toBe(200);
  for (const oldToken of [rotated.token, rotated.read_only_token]) {
    expect((await callIndex(ctx.app, rotated.endpoint, 'info', oldToken)).statusCode).toBe(401);
  }
  const record = json(
    await ctx.app.inject({ method: 'GET', url: `/v2/search/${rotated.id}`, headers: { authorization: account.auth } }),
  );
  expect(record.token).not.toBe(rotated.token);
  const fetched = await callIndex(ctx.app, rotated.endpoint, 'fetch', record.read_only_token, { ids: ['a'] });
  expect(json(fetched)).toEqual({ result: [{ id: 'a' }] });
  expect((await callIndex(ctx.app, rotated.endpoint, 'reset', record.token)).statusCode).toBe(200);
});

test('after DELETE of the index every route answers 401 and its data is gone from disk', async () => {
  const { account, index: doomed } = await createAccountWithIndex(ctx.app);
  const upsert = await callIndex(ctx.app, doomed.endpoint, 'upsert-data/ns', doomed.token, [
    { id: 'a', content: { t: 'x' } },
  ]);
  expect(upsert.statusCode).toBe(200);
  const folder = path.join(ctx.dataDir, 'indexes', doomed.id);
  expect(existsSync(folder)).toBe(true);

  const deleted = await ctx.app.inject({
    method: 'DELETE',
    url: `/v2/search/${doomed.id}`,
    headers: { authorization: account.auth },
  });
  expect(deleted.statusCode).toBe(200);
  expect(existsSync(folder)).toBe(false);
  for (const { path: route, body } of ROUTES) {
    for (const token of [doomed.token, doomed.read_only_token]) {
      const response = await callIndex(ctx.app, doomed.endpoint, route, token, body);
      expect(response.statusCode, route).toBe(401);
    }
  }
});

test('an unknown endpoint is indistinguishable from a wrong token', async () => {
  const response = await callIndex(ctx.app, 'no-such-endpoint-12345', 'info', index.token);
  expect(response.statusCode).toBe(401);
  expect(json(response)).toEqual({ error: 'Unauthorized: Invalid auth token', status: 401, code: 'unauthorized' });
});
