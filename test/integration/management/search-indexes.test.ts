import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestApp, injectAs, json, type Method, type TestContext } from '../../helpers/app.js';
import { createAccount, createIndex, type TestAccount } from '../../helpers/factories.js';

const SERIES_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} \+0000 UTC$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let ctx: TestContext;
let owner: TestAccount;
let stranger: TestAccount;

beforeAll(async () => {
  ctx = await createTestApp();
  owner = await createAccount(ctx.app);
  stranger = await createAccount(ctx.app);
});
afterAll(async () => ctx.close());

const call = (method: Method, url: string, account: TestAccount, payload?: unknown) =>
  injectAs(ctx.app, method, url, account.auth, payload);

describe('POST /v2/search', () => {
  test('returns the full record with the spec field names and JSON types', async () => {
    const response = await call('POST', '/v2/search', owner, { name: 'my-index', region: 'eu-west-1', type: 'payg' });
    expect(response.statusCode).toBe(200);
    const record = json(response);
    expect(Object.keys(record).sort()).toEqual(
      [
        'customer_id',
        'id',
        'name',
        'endpoint',
        'type',
        'region',
        'integration_email',
        'token',
        'read_only_token',
        'max_vector_count',
        'max_monthly_reranks',
        'max_daily_updates',
        'max_daily_queries',
        'max_monthly_bandwidth',
        'max_writes_per_second',
        'max_query_per_second',
        'max_reads_per_request',
        'max_writes_per_request',
        'creation_time',
        'input_enrichment_enabled',
        'throughput_vector',
      ].sort(),
    );
    expect(record).toMatchObject({
      customer_id: owner.email,
      name: 'my-index',
      type: 'payg',
      region: 'eu-west-1',
      integration_email: '',
      max_vector_count: 2_000_000,
      max_monthly_reranks: -1,
      max_daily_updates: -1,
      max_daily_queries: -1,
      max_monthly_bandwidth: -1,
      max_writes_per_second: 1000,
      max_query_per_second: 1000,
      max_reads_per_request: 1000,
      max_writes_per_request: 1000,
      input_enrichment_enabled: true,
    });
    expect(record.id).toMatch(UUID);
    expect(record.endpoint).toMatch(/^[a-z]+-[a-z]+-\d{5}-eu1$/);
    expect(Number.isInteger(record.creation_time)).toBe(true);
    expect(Math.abs(record.creation_time - Date.now() / 1000)).toBeLessThan(60);
    expect(Buffer.from(record.token, 'base64url').length).toBeGreaterThanOrEqual(32);
    expect(Buffer.from(record.read_only_token, 'base64url').length).toBeGreaterThanOrEqual(32);
    expect(record.token).not.toBe(record.read_only_token);
    expect(record.throughput_vector).toHaveLength(60);
    for (const point of record.throughput_vector) {
      expect(point.x).toMatch(SERIES_TIME);
      expect(point.y).toBe(0);
    }
    const times = record.throughput_vector.map((p: { x: string }) =>
      Date.parse(p.x.replace(' +0000 UTC', 'Z').replace(' ', 'T')),
    );
    expect(times[59] - times[0]).toBe(59 * 60_000);
  });

  test('free plan gets the free quotas and us-central1 gets the usc1 suffix', async () => {
    const account = await createAccount(ctx.app);
    const record = await createIndex(ctx.app, account, { type: 'free', region: 'us-central1' });
    expect(record.endpoint).toMatch(/-usc1$/);
    expect(record).toMatchObject({
      type: 'free',
      max_vector_count: 200_000,
      max_monthly_reranks: 1000,
      max_daily_updates: 10_000,
      max_daily_queries: 10_000,
      max_monthly_bandwidth: 10_737_418_240,
      max_writes_per_second: 100,
      max_query_per_second: 100,
      max_reads_per_request: 100,
      max_writes_per_request: 100,
    });
  });

  test('a second free index is refused with free_index_limit', async () => {
    const account = await createAccount(ctx.app);
    await createIndex(ctx.app, account, { type: 'free' });
    const response = await call('POST', '/v2/search', account, {
      name: 'second-free',
      region: 'eu-west-1',
      type: 'free',
    });
    expect(response.statusCode).toBe(409);
    expect(json(response).code).toBe('free_index_limit');
    expect((await call('GET', '/v2/search', account)).json()).toHaveLength(1);
  });

  test('a taken name is refused with index_name_taken, but other accounts may use it', async () => {
    await createIndex(ctx.app, owner, { name: 'shared-name' });
    const again = await call('POST', '/v2/search', owner, { name: 'shared-name', region: 'eu-west-1', type: 'payg' });
    expect(again.statusCode).toBe(409);
    expect(json(again).code).toBe('index_name_taken');
    const other = await call('POST', '/v2/search', stranger, {
      name: 'shared-name',
      region: 'eu-west-1',
      type: 'payg',
    });
    expect(other.statusCode).toBe(200);
  });

  test('the fixed plan is unavailable by default', async () => {
    const response = await call('POST', '/v2/search', owner, { name: 'fixed-one', region: 'eu-west-1', type: 'fixed' });
    expect(response.statusCode).toBe(400);
    expect(json(response).code).toBe('plan_unavailable');
  });

  test.each([
    ['missing name', { region: 'eu-west-1', type: 'payg' }, 'name'],
    ['missing region', { name: 'a', type: 'payg' }, 'region'],
    ['missing type', { name: 'a', region: 'eu-west-1' }, 'type'],
    ['unknown region', { name: 'a', region: 'mars-1', type: 'payg' }, 'region'],
    ['unknown type (a vector type)', { name: 'a', region: 'eu-west-1', type: 'DENSE' }, 'type'],
    ['name with a space', { name: 'my index', region: 'eu-west-1', type: 'payg' }, 'name'],
    ['name too long', { name: 'x'.repeat(65), region: 'eu-west-1', type: 'payg' }, 'name'],
    ['name of the wrong type', { name: 42, region: 'eu-west-1', type: 'payg' }, 'name'],
  ])('%s → 400 invalid_request naming the field', async (_label, body, field) => {
    const response = await call('POST', '/v2/search', owner, body);
    expect(response.statusCode).toBe(400);
    const error = json(response);
    expect(error.code).toBe('invalid_request');
    expect(error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  test('an unknown enum value lists the allowed values', async () => {
    const response = await call('POST', '/v2/search', owner, { name: 'a', region: 'mars-1', type: 'payg' });
    expect(json(response).details).toContainEqual(
      expect.objectContaining({ field: 'region', allowed: ['eu-west-1', 'us-central1'] }),
    );
  });

  test('50 parallel creates with distinct names all succeed with distinct ids, endpoints and tokens', async () => {
    const account = await createAccount(ctx.app);
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call('POST', '/v2/search', account, { name: `p-${i}`, region: 'us-central1', type: 'payg' }),
      ),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(50).fill(200));
    const records = responses.map((r) => json(r));
    for (const field of ['id', 'endpoint', 'token', 'read_only_token']) {
      expect(new Set(records.map((r) => r[field])).size).toBe(50);
    }
    expect(new Set([...records.map((r) => r.token), ...records.map((r) => r.read_only_token)]).size).toBe(100);
    expect((await call('GET', '/v2/search', account)).json()).toHaveLength(50);
  });

  test('50 parallel creates with the same name yield exactly one 200', async () => {
    const account = await createAccount(ctx.app);
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        call('POST', '/v2/search', account, { name: 'same', region: 'eu-west-1', type: 'payg' }),
      ),
    );
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    for (const r of responses.filter((r) => r.statusCode === 409)) expect(json(r).code).toBe('index_name_taken');
    expect((await call('GET', '/v2/search', account)).json()).toHaveLength(1);
  });

  test('50 parallel free creates yield exactly one free index', async () => {
    const account = await createAccount(ctx.app);
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call('POST', '/v2/search', account, { name: `f-${i}`, region: 'eu-west-1', type: 'free' }),
      ),
    );
    expect(responses.filter((r) => r.statusCode === 200)).toHaveLength(1);
    for (const r of responses.filter((r) => r.statusCode !== 200)) expect(json(r).code).toBe('free_index_limit');
  });
});

describe('GET, rename, reset-password, DELETE /v2/search/{id}', () => {
  test('GET returns the same record as create', async () => {
    const created = await createIndex(ctx.app, owner);
    const response = await call('GET', `/v2/search/${created.id}`, owner);
    expect(response.statusCode).toBe(200);
    const { throughput_vector: _a, ...fetched } = json(response);
    const { throughput_vector: _b, ...expected } = created;
    expect(fetched).toEqual(expected);
  });

  test('list returns only the caller’s records', async () => {
    const account = await createAccount(ctx.app);
    const a = await createIndex(ctx.app, account, { name: 'list-a' });
    const b = await createIndex(ctx.app, account, { name: 'list-b' });
    await createIndex(ctx.app, stranger, { name: 'list-c' });
    const list = json(await call('GET', '/v2/search', account));
    expect(list.map((r: { id: string }) => r.id).sort()).toEqual([a.id, b.id].sort());
    expect(list[0].throughput_vector).toHaveLength(60);
  });

  test('rename changes the name and frees the old one', async () => {
    const created = await createIndex(ctx.app, owner, { name: 'before-rename' });
    const response = await call('POST', `/v2/search/${created.id}/rename`, owner, { name: 'after-rename' });
    expect(response.statusCode).toBe(200);
    expect(json(response)).toBe('OK');
    expect(json(await call('GET', `/v2/search/${created.id}`, owner)).name).toBe('after-rename');
    expect(
      (await call('POST', '/v2/search', owner, { name: 'before-rename', region: 'eu-west-1', type: 'payg' }))
        .statusCode,
    ).toBe(200);
  });

  test('rename to a taken name is 409 and leaves the name unchanged', async () => {
    const first = await createIndex(ctx.app, owner, { name: 'rename-taken-1' });
    await createIndex(ctx.app, owner, { name: 'rename-taken-2' });
    const response = await call('POST', `/v2/search/${first.id}/rename`, owner, { name: 'rename-taken-2' });
    expect(response.statusCode).toBe(409);
    expect(json(response).code).toBe('index_name_taken');
    expect(json(await call('GET', `/v2/search/${first.id}`, owner)).name).toBe('rename-taken-1');
  });

  test('reset-password replaces both tokens', async () => {
    const created = await createIndex(ctx.app, owner);
    const response = await call('POST', `/v2/search/${created.id}/reset-password`, owner);
    expect(response.statusCode).toBe(200);
    expect(json(response)).toBe('OK');
    const after = json(await call('GET', `/v2/search/${created.id}`, owner));
    expect(after.token).not.toBe(created.token);
    expect(after.read_only_token).not.toBe(created.read_only_token);
    expect(after.token).not.toBe(after.read_only_token);
  });

  test('DELETE removes the index and its usage; GET is then 404', async () => {
    const created = await createIndex(ctx.app, owner);
    ctx.app.services.usage.record(created.id, { queries: 4 });
    await ctx.app.services.usage.flush();
    const response = await call('DELETE', `/v2/search/${created.id}`, owner);
    expect(response.statusCode).toBe(200);
    expect(json(response)).toBe('OK');
    const after = await call('GET', `/v2/search/${created.id}`, owner);
    expect(after.statusCode).toBe(404);
    expect(json(after).code).toBe('index_not_found');
    expect((await call('DELETE', `/v2/search/${created.id}`, owner)).statusCode).toBe(404);
    const usage = await ctx.store.db
      .selectFrom('usage_minutes')
      .selectAll()
      .where('index_id', '=', created.id)
      .execute();
    expect(usage).toEqual([]);
  });

  test('another account’s index is 404 on every route, exactly like a missing one', async () => {
    const created = await createIndex(ctx.app, owner);
    const routes: [string, Method, unknown?][] = [
      [`/v2/search/${created.id}`, 'GET'],
      [`/v2/search/${created.id}`, 'DELETE'],
      [`/v2/search/${created.id}/rename`, 'POST', { name: 'stolen' }],
      [`/v2/search/${created.id}/reset-password`, 'POST'],
      [`/v2/search/${created.id}/stats`, 'GET'],
    ];
    for (const [url, method, payload] of routes) {
      const foreign = await call(method, url, stranger, payload);
      const missing = await call(
        method,
        url.replace(created.id, '00000000-0000-4000-8000-000000000000'),
        owner,
        payload,
      );
      expect(foreign.statusCode, `${method} ${url}`).toBe(404);
      expect(json(foreign)).toEqual(json(missing));
      expect(json(foreign).code).toBe('index_not_found');
    }
    const still = json(await call('GET', `/v2/search/${created.id}`, owner));
    expect(still.name).toBe(created.name);
    expect(still.token).toBe(created.token);
  });

  test.each(['not-a-uuid', '1234', 'a'.repeat(300), '%27%20OR%201%3D1'])(
    'malformed id %s is 404, not 500',
    async (id) => {
      const response = await call('GET', `/v2/search/${id}`, owner);
      expect(response.statusCode).toBe(404);
      expect(json(response).code).toBe('index_not_found');
    },
  );
});
