import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestApp, injectAs, json, type TestContext } from '../../helpers/app.js';
import { createAccount, type TestAccount } from '../../helpers/factories.js';

let ctx: TestContext;
let owner: TestAccount;
let stranger: TestAccount;

beforeAll(async () => {
  ctx = await createTestApp();
  owner = await createAccount(ctx.app);
  stranger = await createAccount(ctx.app);
});
afterAll(async () => ctx.close());

const instances = async (account: TestAccount) =>
  json(await injectAs(ctx.app, 'GET', '/v2/messaging/users', account.auth));
const get = async (account: TestAccount, id: string) =>
  json(await injectAs(ctx.app, 'GET', `/v2/messaging/user/${id}`, account.auth));

describe('messaging instances', () => {
  test('each account has one paid instance per messaging region', async () => {
    const list = await instances(owner);
    expect(list.map((i: { region: string }) => i.region).sort()).toEqual(['eu-central-1', 'us-east-1']);
    for (const instance of list) {
      expect(instance).toMatchObject({
        customer_id: owner.email,
        type: 'paid',
        active: true,
        state: 'active',
        prod_pack_enabled: false,
      });
      expect(instance.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(instance.token).not.toBe(instance.read_only_token);
      expect(Number.isInteger(instance.creation_time)).toBe(true);
      expect(await get(owner, instance.id)).toEqual(instance);
    }
  });

  test('enable and disable prodpack are idempotent and change prod_pack_enabled', async () => {
    const [instance] = await instances(owner);
    for (let i = 0; i < 2; i++) {
      const response = await injectAs(ctx.app, 'POST', `/v2/messaging/enable-prodpack/${instance.id}`, owner.auth);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(json(response)).toBe('OK');
      expect((await get(owner, instance.id)).prod_pack_enabled).toBe(true);
    }
    for (let i = 0; i < 2; i++) {
      const response = await injectAs(ctx.app, 'POST', `/v2/messaging/disable-prodpack/${instance.id}`, owner.auth);
      expect(json(response)).toBe('OK');
      expect((await get(owner, instance.id)).prod_pack_enabled).toBe(false);
    }
  });

  test('a free-plan instance cannot enable the production pack', async () => {
    const [, instance] = await instances(owner);
    expect(
      json(await injectAs(ctx.app, 'POST', `/v2/messaging/set-plan/${instance.id}`, owner.auth, { plan_name: 'free' })),
    ).toBe('OK');
    expect((await get(owner, instance.id)).type).toBe('free');
    const response = await injectAs(ctx.app, 'POST', `/v2/messaging/enable-prodpack/${instance.id}`, owner.auth);
    expect(response.statusCode).toBe(400);
    expect(json(response).code).toBe('prodpack_requires_paid_plan');
    expect((await get(owner, instance.id)).prod_pack_enabled).toBe(false);
    expect(
      json(await injectAs(ctx.app, 'POST', `/v2/messaging/set-plan/${instance.id}`, owner.auth, { plan_name: 'paid' })),
    ).toBe('OK');
    expect(
      (await injectAs(ctx.app, 'POST', `/v2/messaging/enable-prodpack/${instance.id}`, owner.auth)).statusCode,
    ).toBe(200);
  });

  test('moving to the free plan turns the production pack off', async () => {
    const account = await createAccount(ctx.app);
    const [instance] = await instances(account);
    await injectAs(ctx.app, 'POST', `/v2/messaging/enable-prodpack/${instance.id}`, account.auth);
    await injectAs(ctx.app, 'POST', `/v2/messaging/set-plan/${instance.id}`, account.auth, { plan_name: 'free' });
    expect(await get(account, instance.id)).toMatchObject({ type: 'free', prod_pack_enabled: false });
  });

  test('set-plan rejects unknown plans with the allowed values', async () => {
    const [instance] = await instances(owner);
    const response = await injectAs(ctx.app, 'POST', `/v2/messaging/set-plan/${instance.id}`, owner.auth, {
      plan_name: 'gold',
    });
    expect(response.statusCode).toBe(400);
    expect(json(response).details).toContainEqual(
      expect.objectContaining({ field: 'plan_name', allowed: ['free', 'paid'] }),
    );
  });

  test('another account’s instance is 404 on every route and is left unchanged', async () => {
    const [instance] = await instances(owner);
    const before = await get(owner, instance.id);
    const routes: [Parameters<typeof injectAs>[1], string, unknown?][] = [
      ['GET', `/v2/messaging/user/${instance.id}`],
      ['POST', `/v2/messaging/enable-prodpack/${instance.id}`],
      ['POST', `/v2/messaging/disable-prodpack/${instance.id}`],
      ['POST', `/v2/messaging/set-plan/${instance.id}`, { plan_name: 'free' }],
    ];
    for (const [method, url, payload] of routes) {
      const response = await injectAs(ctx.app, method, url, stranger.auth, payload);
      expect(response.statusCode, url).toBe(404);
      expect(json(response).code).toBe('messaging_instance_not_found');
    }
    expect(await get(owner, instance.id)).toEqual(before);
    expect((await instances(stranger)).map((i: { id: string }) => i.id)).not.toContain(instance.id);
  });

  test('a malformed id is 404', async () => {
    const response = await injectAs(ctx.app, 'POST', '/v2/messaging/enable-prodpack/not-a-uuid', owner.auth);
    expect(response.statusCode).toBe(404);
    expect(json(response).code).toBe('messaging_instance_not_found');
  });

  test('new instances follow SEARCHPLANE_MESSAGING_DEFAULT_PLAN', async () => {
    const freeCtx = await createTestApp({ env: { SEARCHPLANE_MESSAGING_DEFAULT_PLAN: 'free' } });
    try {
      const account = await createAccount(freeCtx.app);
      const list = json(await injectAs(freeCtx.app, 'GET', '/v2/messaging/users', account.auth));
      expect(list.map((i: { type: string }) => i.type)).toEqual(['free', 'free']);
    } finally {
      await freeCtx.close();
    }
  });
});
