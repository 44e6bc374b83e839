import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApiKey } from '../../helpers/api-keys.js';
import { createTestApp, injectAs, json, type Method, type TestContext } from '../../helpers/app.js';
import { manualClock } from '../../helpers/data-plane.js';
import { createAccount, createIndex, type TestAccount } from '../../helpers/factories.js';

const DAY = 86_400_000;
const clock = manualClock(Date.parse('2026-11-22T12:00:00Z'));
let ctx: TestContext;
let account: TestAccount;

beforeAll(async () => {
  ctx = await createTestApp({ clock: clock.now, env: { SEARCHPLANE_AUDIT_RETENTION_DAYS: '2' } });
  account = await createAccount(ctx.app);
});
afterAll(async () => ctx.close());

const call = (method: Method, url: string, auth: string, body?: unknown, headers: Record<string, string> = {}) =>
  ctx.app.inject({
    method,
    url,
    remoteAddress: '10.20.30.40',
    headers: { authorization: auth, ...headers },
    ...(body === undefined ? {} : { payload: body as object }),
  });

const entries = async (query = '', auth = account.auth) => {
  const response = await injectAs(ctx.app, 'GET', `/v2/auditlogs${query}`, auth);
  expect(response.statusCode).toBe(200);
  return json(response) as { data: Record<string, any>[]; next_cursor: string | null };
};

describe('every management change is recorded, reads and refusals are not', () => {
  test('index, messaging and key changes, newest first, with who, from where and what', async () => {
    const since = clock.now();
    clock.advance(1000);
    const created = json(
      await call(
        'POST',
        '/v2/search',
        account.auth,
        { name: 'audited', region: 'eu-west-1', type: 'payg' },
        {
          'x-request-id': 'audit-create-1',
        },
      ),
    );
    const messaging = json(await injectAs(ctx.app, 'GET', '/v2/messaging/users', account.auth))[0];
    // Entries of one millisecond are ordered by id: each change here gets its own time.
    clock.advance(1000);
    const key = await createApiKey(ctx.app, account, { name: 'ops', actions: ['*'] });
    const changes: [Method, string, unknown][] = [
      ['POST', `/v2/search/${created.id}/rename`, { name: 'audited-2' }],
      ['POST', `/v2/search/${created.id}/reset-password`, { grace_seconds: 30 }],
      ['POST', `/v2/messaging/enable-prodpack/${messaging.id}`, undefined],
      ['POST', `/v2/messaging/disable-prodpack/${messaging.id}`, undefined],
      ['POST', `/v2/messaging/set-plan/${messaging.id}`, { plan_name: 'paid' }],
      ['DELETE', `/v2/search/${created.id}`, undefined],
    ];
    for (const [method, url, body] of changes) {
      clock.advance(1000);
      expect((await call(method, url, key.auth, body)).statusCode, url).toBe(200);
    }
    // Reads and refused changes leave nothing.
    await injectAs(ctx.app, 'GET', '/v2/search', account.auth);
    expect((await call('DELETE', `/v2/search/${created.id}`, key.auth)).statusCode).toBe(404);
    clock.advance(1000);
    expect((await call('DELETE', `/v2/keys/${key.id}`, account.auth)).statusCode).toBe(200);

    const { data } = await entries(`?from=${since}`);
    expect(data.map((entry) => entry.action)).toEqual([
      'key.delete',
      'index.delete',
      'messaging.set_plan',
      'messaging.disable_prodpack',
      'messaging.enable_prodpack',
      'index.reset_password',
      'index.rename',
      'key.create',
      'index.create',
    ]);
    const byAction = Object.fromEntries(data.map((entry) => [entry.action, entry]));
    expect(byAction['index.create']).toEqual({
      id: expect.any(String),
      time: since + 1000,
      account: account.email,
      key_id: null,
      key_name: 'account',
      request_id: 'audit-create-1',
      client_address: '10.20.30.40',
      action: 'index.create',
      target: created.id,
      details: { name: 'audited', region: 'eu-west-1', type: 'payg' },
    });
    expect(byAction['index.rename']).toMatchObject({ key_id: key.id, key_name: 'ops', details: { name: 'audited-2' } });
    expect(byAction['index.reset_password'].details).toEqual({ grace_seconds: 30 });
    expect(byAction['messaging.set_plan']).toMatchObject({ target: messaging.id, details: { plan_name: 'paid' } });
    expect(byAction['key.create']).toMatchObject({ target: key.id, details: { name: 'ops', actions: ['*'] } });
    expect(byAction['key.delete'].target).toBe(key.id);

    // Never a secret: neither the index's tokens nor the key's secret.
    const stored = JSON.stringify(await ctx.store.db.selectFrom('audit_log').selectAll().execute());
    for (const secret of [created.token, created.read_only_token, key.key, account.apiKey]) {
      expect(stored).not.toContain(secret);
    }
  });

  test('a replayed idempotent create is recorded once', async () => {
    const since = clock.now();
    const body = { name: 'replayed', region: 'eu-west-1', type: 'payg' };
    for (let i = 0; i < 2; i++) {
      expect(
        (await call('POST', '/v2/search', account.auth, body, { 'idempotency-key': 'audit-once' })).statusCode,
      ).toBe(200);
    }
    const { data } = await entries(`?from=${since}`);
    expect(data.filter((entry) => entry.action === 'index.create')).toHaveLength(1);
  });
});

describe('GET /v2/auditlogs', () => {
  test('changes made within one millisecond are listed newest first too', async () => {
    clock.advance(1000);
    const since = clock.now();
    const names = Array.from({ length: 12 }, (_, i) => `same-ms-${i}`);
    for (const name of names) await createIndex(ctx.app, account, { name });
    const listed = (await entries(`?from=${since}&limit=100`)).data.map((entry) => entry.details.name);
    expect(listed).toEqual([...names].reverse());
  });

  test('from (inclusive) and to (exclusive) select a time range; pages follow newest first', async () => {
    const start = clock.now() + 60_000;
    clock.set(start);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await createIndex(ctx.app, account)).id);
      clock.advance(1000);
    }
    const range = await entries(`?from=${start + 1000}&to=${start + 4000}`);
    expect(range.data.map((entry) => entry.target)).toEqual([ids[3], ids[2], ids[1]]);

    const seen: string[] = [];
    let page = await entries(`?from=${start}&limit=2`);
    for (;;) {
      seen.push(...page.data.map((entry) => entry.target));
      if (page.next_cursor === null) break;
      page = await entries(`?from=${start}&limit=2&cursor=${page.next_cursor}`);
    }
    expect(seen).toEqual([...ids].reverse());
  });

  test("another account sees none of this account's entries", async () => {
    const other = await createAccount(ctx.app);
    expect((await entries('', other.auth)).data).toEqual([]);
  });

  test.each(['from=abc', 'to=-1', 'limit=0', 'cursor=nope'])('?%s is 400 invalid_request', async (query) => {
    const response = await injectAs(ctx.app, 'GET', `/v2/auditlogs?${query}`, account.auth);
    expect(response.statusCode).toBe(400);
    expect(json(response).code).toBe('invalid_request');
  });

  test('entries older than the retention are no longer listed, then deleted', async () => {
    const owner = await createAccount(ctx.app);
    await createIndex(ctx.app, owner);
    expect((await entries('', owner.auth)).data).toHaveLength(1);
    clock.advance(2 * DAY + 1);
    expect((await entries('', owner.auth)).data).toEqual([]);
    // The next change deletes what is past the retention, for every account.
    await createIndex(ctx.app, owner);
    const rows = await ctx.store.db.selectFrom('audit_log').select('time').execute();
    expect(rows.every((row) => Number(row.time) >= clock.now() - 2 * DAY)).toBe(true);
    expect((await entries('', owner.auth)).data).toHaveLength(1);
  });
});
