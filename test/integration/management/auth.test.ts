import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { basic, createTestApp, injectAs, json, registeredRoutes, type TestContext } from '../../helpers/app.js';
import { createAccount, createIndex, type TestAccount } from '../../helpers/factories.js';

let now = Date.parse('2026-11-22T12:00:00Z');
let ctx: TestContext;
let account: TestAccount;

beforeAll(async () => {
  ctx = await createTestApp({ clock: () => now });
  account = await createAccount(ctx.app);
});
afterAll(async () => ctx.close());

const fromAddress = (remoteAddress: string, authorization?: string) =>
  ctx.app.inject({ method: 'GET', url: '/v2/search', remoteAddress, headers: authorization ? { authorization } : {} });

describe('HTTP Basic authentication', () => {
  const cases: [string, () => string | undefined][] = [
    ['no Authorization header', () => undefined],
    ['a Bearer token', () => 'Bearer abc'],
    ['Basic with invalid base64 content', () => 'Basic !!!'],
    ['Basic without a colon', () => `Basic ${Buffer.from('nocolon').toString('base64')}`],
    ['Basic with an empty key', () => basic(account.email, '')],
    ['an unknown email', () => basic('nobody@example.com', account.apiKey)],
    ['a wrong key', () => basic(account.email, `${account.apiKey}x`)],
  ];

  test.each(cases)('%s → 401 unauthorized with WWW-Authenticate', async (_label, header) => {
    const response = await fromAddress('10.9.0.1', header());
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Basic realm="searchplane"');
    expect(json(response).code).toBe('unauthorized');
  });

  test('every /v2 route requires credentials', async () => {
    const index = await createIndex(ctx.app, account);
    const messaging = json(await injectAs(ctx.app, 'GET', '/v2/messaging/users', account.auth))[0];
    const routes: [Parameters<typeof injectAs>[1], string][] = [
      ['POST', '/v2/search'],
      ['GET', '/v2/search'],
      ['GET', `/v2/search/${index.id}`],
      ['DELETE', `/v2/search/${index.id}`],
      ['POST', `/v2/search/${index.id}/rename`],
      ['POST', `/v2/search/${index.id}/reset-password`],
      ['GET', `/v2/search/${index.id}/stats`],
      ['GET', '/v2/search/stats'],
      ['GET', '/v2/messaging/users'],
      ['GET', `/v2/messaging/user/${messaging.id}`],
      ['POST', `/v2/messaging/enable-prodpack/${messaging.id}`],
      ['POST', `/v2/messaging/disable-prodpack/${messaging.id}`],
      ['POST', `/v2/messaging/set-plan/${messaging.id}`],
    ];
    for (const [method, url] of routes) {
      const response = await ctx.app.inject({
        method,
        url,
        remoteAddress: '10.9.0.2',
        ...(method === 'POST' ? { payload: {} } : {}),
      });
      expect(response.statusCode, `${method} ${url}`).toBe(401);
      expect(json(response).code).toBe('unauthorized');
    }
    expect(json(await injectAs(ctx.app, 'GET', `/v2/search/${index.id}`, account.auth)).id).toBe(index.id);
  });

  test('every registered /v2 route, HEAD included, refuses a request without credentials', async () => {
    const routes = registeredRoutes(ctx.app).filter(([, path]) => path.startsWith('/v2/'));
    // The list comes from Fastify's own route tree: a route added later is checked without editing this test.
    expect(routes.length).toBeGreaterThan(15);
    expect(routes.some(([method]) => method === 'HEAD')).toBe(true);
    for (const [method, path] of routes) {
      const url = path.replaceAll(/:[A-Za-z]+/g, '00000000-0000-4000-8000-000000000000');
      const response = await ctx.app.inject({
        method: method as Parameters<typeof injectAs>[1],
        url,
        remoteAddress: '10.9.0.3',
        ...(method === 'POST' ? { payload: {} } : {}),
      });
      expect(response.statusCode, `${method} ${path}`).toBe(401);
      if (method !== 'HEAD') expect(json(response).code).toBe('unauthorized');
    }
  });

  test('a path or query with a NUL is refused (400) before credentials are looked at', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/v2/search?name=%00', remoteAddress: '10.9.0.4' });
    expect(response.statusCode).toBe(400);
    expect(json(response).code).toBe('invalid_characters');
  });

  test('the right key works and a rotated key stops working at once', async () => {
    const other = await createAccount(ctx.app);
    expect((await injectAs(ctx.app, 'GET', '/v2/search', other.auth)).statusCode).toBe(200);
    const rotated = await ctx.app.services.accounts.rotateKey(other.email);
    expect((await injectAs(ctx.app, 'GET', '/v2/search', other.auth)).statusCode).toBe(401);
    expect((await injectAs(ctx.app, 'GET', '/v2/search', basic(other.email, rotated.api_key))).statusCode).toBe(200);
  });

  test('answers carrying tokens are marked Cache-Control: no-store (create, list, get, and on the cached path)', async () => {
    const created = await injectAs(ctx.app, 'POST', '/v2/search', account.auth, {
      name: 'no-store',
      region: 'us-central1',
      type: 'payg',
    });
    const { id } = json(created);
    const answers = [
      created,
      await injectAs(ctx.app, 'GET', '/v2/search', account.auth),
      await injectAs(ctx.app, 'GET', `/v2/search/${id}`, account.auth),
      // The same header again: verified from the memo of recently verified headers.
      await injectAs(ctx.app, 'GET', `/v2/search/${id}`, account.auth),
    ];
    for (const response of answers) {
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
    }
  });

  test('keys are stored hashed, never in clear', async () => {
    const row = await ctx.store.db
      .selectFrom('accounts')
      .selectAll()
      .where('email', '=', account.email)
      .executeTakeFirstOrThrow();
    expect(row.api_key_hash).not.toContain(account.apiKey);
    expect(row.api_key_hash).toMatch(/^scrypt\$/);
  });
});

describe('throttling repeated failures', () => {
  const limit = 20;

  test(`exactly ${limit} failures for an account from one address, then 429 with Retry-After, then it recovers`, async () => {
    const address = '10.1.1.1';
    const wrong = basic(account.email, 'wrong-key-wrong-key');
    for (let i = 0; i < limit; i++) expect((await fromAddress(address, wrong)).statusCode).toBe(401);

    // The next attempt is refused whatever the key: guessing from there is pointless.
    const blocked = await fromAddress(address, account.auth);
    expect(blocked.statusCode).toBe(429);
    expect(json(blocked).code).toBe('too_many_auth_failures');
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await fromAddress(address, wrong)).statusCode).toBe(429);

    // Other addresses are unaffected, and so are other accounts from this address.
    expect((await fromAddress('10.1.1.2', account.auth)).statusCode).toBe(200);
    const other = await createAccount(ctx.app);
    expect((await fromAddress(address, other.auth)).statusCode).toBe(200);

    now += retryAfter * 1000;
    expect((await fromAddress(address, account.auth)).statusCode).toBe(200);
  });

  test('a header verified moments ago (known without parsing) is refused like any other once its pair is blocked', async () => {
    const address = '10.1.2.1';
    expect((await fromAddress(address, account.auth)).statusCode).toBe(200);
    expect((await fromAddress(address, account.auth)).statusCode).toBe(200);
    const wrong = basic(account.email, 'wrong-key-wrong-key');
    for (let i = 0; i < limit; i++) expect((await fromAddress(address, wrong)).statusCode).toBe(401);
    const blocked = await fromAddress(address, account.auth);
    expect(blocked.statusCode).toBe(429);
    expect(json(blocked).code).toBe('too_many_auth_failures');
    now += Number(blocked.headers['retry-after']) * 1000;
    expect((await fromAddress(address, account.auth)).statusCode).toBe(200);
  });

  test('successful requests never count toward the limit', async () => {
    const address = '10.2.2.2';
    for (let i = 0; i < limit * 2; i++) expect((await fromAddress(address, account.auth)).statusCode).toBe(200);
  });
});
