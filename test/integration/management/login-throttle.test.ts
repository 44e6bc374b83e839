import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { basic, createTestApp, json, type TestContext } from '../../helpers/app.js';
import { createAccount, type TestAccount } from '../../helpers/factories.js';

/**
 * Failed-login throttling through the API, with a limit of 3 per (account, address) per minute:
 * so 15 per account and 30 per address (5x and 10x). Addresses come from `remoteAddress`, or from
 * X-Forwarded-For when SEARCHPLANE_TRUST_PROXY trusts the socket's address.
 */
const LIMIT = 3;
const start = Date.parse('2026-11-22T12:00:00Z');
let now = start;

function login(ctx: TestContext, authorization: string, remoteAddress: string, forwardedFor?: string) {
  return ctx.app.inject({
    method: 'GET',
    url: '/v2/search',
    remoteAddress,
    headers: { authorization, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
  });
}

async function failTimes(ctx: TestContext, email: string, address: string, times: number, forwardedFor?: string) {
  for (let i = 0; i < times; i++) {
    expect((await login(ctx, basic(email, 'wrong-key-0123456789'), address, forwardedFor)).statusCode).toBe(401);
  }
}

function expectThrottled(response: Awaited<ReturnType<typeof login>>) {
  expect(response.statusCode).toBe(429);
  expect(json(response).code).toBe('too_many_auth_failures');
  expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
}

describe('without a trusted proxy', () => {
  let ctx: TestContext;
  let victim: TestAccount;

  beforeAll(async () => {
    ctx = await createTestApp({ clock: () => now, env: { SEARCHPLANE_AUTH_FAILURE_LIMIT: String(LIMIT) } });
    victim = await createAccount(ctx.app);
  });
  afterAll(async () => ctx.close());

  test('brute force of one account from one address: exactly the limit, then 429 whatever the key', async () => {
    await failTimes(ctx, victim.email, '10.0.0.1', LIMIT);
    expectThrottled(await login(ctx, victim.auth, '10.0.0.1'));
    // X-Forwarded-For is ignored: the socket address is what counts.
    expectThrottled(await login(ctx, victim.auth, '10.0.0.1', '10.9.9.9'));
    expect((await login(ctx, victim.auth, '10.0.0.2')).statusCode).toBe(200);
    now += 60_000;
    expect((await login(ctx, victim.auth, '10.0.0.1')).statusCode).toBe(200);
  });

  test('a store that cannot be reached (503) is no failed login: a client retrying through an outage is not locked out', async () => {
    const account = await createAccount(ctx.app);
    const unreachable = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const lookup = vi.spyOn(ctx.app.services.accounts, 'authenticate').mockRejectedValue(unreachable);
    try {
      for (let i = 0; i < LIMIT + 2; i++) {
        const response = await login(ctx, account.auth, '10.2.0.1');
        expect([response.statusCode, json(response).code]).toEqual([503, 'service_unavailable']);
      }
    } finally {
      lookup.mockRestore();
    }
    expect((await login(ctx, account.auth, '10.2.0.1')).statusCode).toBe(200);
  });

  test("failures for other accounts never refuse an account's correct key from the same address", async () => {
    const address = '10.1.0.1';
    for (let i = 0; i < 8; i++) await failTimes(ctx, `other${i}@example.com`, address, LIMIT); // 24 < 30
    expect((await login(ctx, victim.auth, address)).statusCode).toBe(200);
    now += 60_000;
  });

  test('a distributed brute force refuses the account to new addresses, not to where its owner logs in', async () => {
    const target = await createAccount(ctx.app);
    expect((await login(ctx, target.auth, '10.2.0.1')).statusCode).toBe(200);
    for (let i = 0; i < LIMIT * 5; i++) await failTimes(ctx, target.email, `10.3.0.${i}`, 1);
    expectThrottled(await login(ctx, target.auth, '10.2.9.9'));
    expect((await login(ctx, target.auth, '10.2.0.1')).statusCode).toBe(200);
    expect((await login(ctx, victim.auth, '10.2.9.9')).statusCode).toBe(200);
    now += 60_000;
  });

  test('an address past its ceiling is refused for accounts new to it only', async () => {
    const address = '10.4.0.1';
    const regular = await createAccount(ctx.app);
    const newcomer = await createAccount(ctx.app);
    expect((await login(ctx, regular.auth, address)).statusCode).toBe(200);
    for (let i = 0; i < 10; i++) await failTimes(ctx, `stuffed${i}@example.com`, address, LIMIT);
    expectThrottled(await login(ctx, newcomer.auth, address));
    expect((await login(ctx, regular.auth, address)).statusCode).toBe(200);
    expect((await login(ctx, newcomer.auth, '10.4.0.2')).statusCode).toBe(200);
    now += 60_000;
  });
});

describe('behind a trusted proxy (SEARCHPLANE_TRUST_PROXY)', () => {
  let ctx: TestContext;
  let account: TestAccount;

  beforeAll(async () => {
    ctx = await createTestApp({
      clock: () => now,
      env: { SEARCHPLANE_AUTH_FAILURE_LIMIT: String(LIMIT), SEARCHPLANE_TRUST_PROXY: '10.10.0.0/16' },
    });
    account = await createAccount(ctx.app);
  });
  afterAll(async () => ctx.close());

  test('the client address comes from X-Forwarded-For when the proxy is trusted', async () => {
    const proxy = '10.10.0.5';
    await failTimes(ctx, account.email, proxy, LIMIT, '203.0.113.7');
    expectThrottled(await login(ctx, account.auth, proxy, '203.0.113.7'));
    expect((await login(ctx, account.auth, proxy, '198.51.100.4')).statusCode).toBe(200);
  });

  test('an untrusted peer cannot choose its address with X-Forwarded-For', async () => {
    const attacker = '192.0.2.66';
    await failTimes(ctx, account.email, attacker, LIMIT, '198.51.100.1');
    expectThrottled(await login(ctx, account.auth, attacker, '198.51.100.2'));
  });
});
