import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ACTIONS, type Action, missingActionCode } from '../../../src/services/key-actions.js';
import { createApiKey, type TestApiKey } from '../../helpers/api-keys.js';
import {
  basic,
  createTestApp,
  injectAs,
  json,
  type Method,
  registeredRoutes,
  type TestContext,
} from '../../helpers/app.js';
import { createAccount, createIndex, type TestAccount } from '../../helpers/factories.js';

/**
 * Every management route × every action: a key holding only the route's action gets the route's
 * answer, a key holding any other action gets 403 with the code naming the route's action. Ids
 * of routes that would destroy the fixtures name nothing (404 once authorized).
 */
const MISSING = '00000000-0000-4000-8000-000000000000';

interface Row {
  method: Method;
  path: string;
  action: Action;
  url: () => string;
  body?: () => unknown;
  /** Status for a key holding the action. */
  status: number;
}

let ctx: TestContext;
let owner: TestAccount;
let stranger: TestAccount;
let index: { id: string; name: string };
let messagingId: string;
const keys = new Map<Action, TestApiKey>();
let n = 0;

const ROWS: Row[] = [
  {
    method: 'POST',
    path: '/v2/search',
    action: 'indexes.write',
    url: () => '/v2/search',
    body: () => ({ name: `matrix-${++n}`, region: 'us-central1', type: 'payg' }),
    status: 200,
  },
  { method: 'GET', path: '/v2/search', action: 'indexes.read', url: () => '/v2/search', status: 200 },
  { method: 'GET', path: '/v2/search/:id', action: 'indexes.read', url: () => `/v2/search/${index.id}`, status: 200 },
  {
    method: 'DELETE',
    path: '/v2/search/:id',
    action: 'indexes.delete',
    url: () => `/v2/search/${MISSING}`,
    status: 404,
  },
  {
    method: 'POST',
    path: '/v2/search/:id/rename',
    action: 'indexes.write',
    url: () => `/v2/search/${index.id}/rename`,
    body: () => ({ name: index.name }),
    status: 200,
  },
  {
    method: 'POST',
    path: '/v2/search/:id/reset-password',
    action: 'tokens.rotate',
    url: () => `/v2/search/${MISSING}/reset-password`,
    status: 404,
  },
  {
    method: 'POST',
    path: '/v2/search/:id/transfer',
    action: 'indexes.transfer',
    url: () => `/v2/search/${MISSING}/transfer`,
    body: () => ({ target_account: stranger.email }),
    status: 404,
  },
  { method: 'GET', path: '/v2/search/stats', action: 'stats.read', url: () => '/v2/search/stats', status: 200 },
  {
    method: 'GET',
    path: '/v2/search/:id/stats',
    action: 'stats.read',
    url: () => `/v2/search/${index.id}/stats`,
    status: 200,
  },
  {
    method: 'GET',
    path: '/v2/messaging/users',
    action: 'messaging.read',
    url: () => '/v2/messaging/users',
    status: 200,
  },
  {
    method: 'GET',
    path: '/v2/messaging/user/:id',
    action: 'messaging.read',
    url: () => `/v2/messaging/user/${messagingId}`,
    status: 200,
  },
  {
    method: 'POST',
    path: '/v2/messaging/enable-prodpack/:id',
    action: 'messaging.write',
    url: () => `/v2/messaging/enable-prodpack/${MISSING}`,
    status: 404,
  },
  {
    method: 'POST',
    path: '/v2/messaging/disable-prodpack/:id',
    action: 'messaging.write',
    url: () => `/v2/messaging/disable-prodpack/${MISSING}`,
    status: 404,
  },
  {
    method: 'POST',
    path: '/v2/messaging/set-plan/:id',
    action: 'messaging.write',
    url: () => `/v2/messaging/set-plan/${MISSING}`,
    body: () => ({ plan_name: 'free' }),
    status: 404,
  },
  {
    method: 'POST',
    path: '/v2/keys',
    action: 'keys.write',
    url: () => '/v2/keys',
    body: () => ({ name: `made-${++n}`, actions: ['keys.write'] }),
    status: 200,
  },
  { method: 'GET', path: '/v2/keys', action: 'keys.read', url: () => '/v2/keys', status: 200 },
  { method: 'DELETE', path: '/v2/keys/:id', action: 'keys.delete', url: () => `/v2/keys/${MISSING}`, status: 404 },
  { method: 'GET', path: '/v2/auditlogs', action: 'auditlogs.read', url: () => '/v2/auditlogs', status: 200 },
];

beforeAll(async () => {
  ctx = await createTestApp();
  owner = await createAccount(ctx.app);
  stranger = await createAccount(ctx.app);
  index = await createIndex(ctx.app, owner);
  messagingId = json(await injectAs(ctx.app, 'GET', '/v2/messaging/users', owner.auth))[0].id;
  for (const action of ACTIONS) keys.set(action, await createApiKey(ctx.app, owner, { actions: [action] }));
}, 60_000);
afterAll(async () => ctx.close());

const send = (row: Row, authorization: string | undefined) =>
  injectAs(ctx.app, row.method, row.url(), authorization, row.body?.());

test('the matrix names every registered management route', () => {
  const registered = registeredRoutes(ctx.app)
    .filter(([method, path]) => path.startsWith('/v2/') && method !== 'HEAD')
    .map(([method, path]) => `${method} ${path}`)
    .sort();
  expect(ROWS.map((row) => `${row.method} ${row.path}`).sort()).toEqual(registered);
});

describe.each(ROWS)('$method $path needs $action', (row) => {
  test.each(ACTIONS)('a key holding only %s', async (held) => {
    const response = await send(row, keys.get(held)?.auth);
    if (held === row.action) {
      expect(response.statusCode).toBe(row.status);
    } else {
      expect(response.statusCode).toBe(403);
      expect(json(response).code).toBe(missingActionCode(row.action));
    }
  });

  const others: [string, () => string | undefined, number, string | undefined][] = [
    ['the account key', () => owner.auth, row.status, undefined],
    ['no credentials', () => undefined, 401, 'unauthorized'],
    ['a wrong key', () => basic(owner.email, 'wrong-key-wrong-key'), 401, 'unauthorized'],
  ];
  test.each(others)('%s', async (_label, auth, status, code) => {
    const response = await send(row, auth());
    expect(response.statusCode).toBe(status);
    if (code) expect(json(response).code).toBe(code);
  });

  test("another account's key reaches none of the owner's resources", async () => {
    const response = await send(row, stranger.auth);
    if (row.url().includes(index.id) || row.url().includes(messagingId)) {
      expect(response.statusCode).toBe(404);
    } else {
      expect(response.statusCode).toBe(row.status);
    }
  });
});
