import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { basic, createTestApp, json, type TestContext } from '../helpers/app.js';
import { callIndex, createAccountWithIndex, setQuotas, type TestIndex } from '../helpers/data-plane.js';
import type { TestAccount } from '../helpers/factories.js';

/**
 * Named cases of the input the fuzz suite generates at random, each with its exact answer, on
 * both backends: what PostgreSQL cannot store (NUL) and UTF-8 cannot encode (lone surrogates) is a
 * 400 before anything is stored; limits are 4xx with stable codes; long IN lists and AND chains work.
 */
let ctx: TestContext;
let account: TestAccount;
let index: TestIndex;

const NUL = 'a\u0000b';
const SURROGATE = 'a\ud800b';
const nested = (depth: number): unknown => (depth === 0 ? 'leaf' : { n: nested(depth - 1) });

beforeAll(async () => {
  ctx = await createTestApp();
  ({ account, index } = await createAccountWithIndex(ctx.app));
  // Unlimited reads: the engine's own caps are what answers, not the plan's.
  await setQuotas(ctx.store, index.id, { max_reads_per_request: -1 });
  const docs = Array.from({ length: 30 }, (_, i) => ({
    id: `doc-${i}`,
    content: { title: `document ${i}`, n: i },
    metadata: { group: `g${i % 3}` },
  }));
  expect((await callIndex(ctx.app, index.endpoint, 'upsert-data/ns', index.token, docs)).statusCode).toBe(200);
});
afterAll(async () => ctx.close());

function expectError(response: Awaited<ReturnType<typeof callIndex>>, status: number, code: string) {
  expect(response.statusCode, response.body).toBe(status);
  expect(json(response)).toMatchObject({ status, code, error: expect.any(String) });
}

describe('data plane', () => {
  test.each([
    ['NUL in a document id', 'upsert-data/ns', [{ id: NUL, content: { t: 'x' } }]],
    ['NUL in content', 'upsert-data/ns', [{ id: 'x', content: { t: NUL } }]],
    ['NUL in a content key', 'upsert-data/ns', [{ id: 'x', content: { [NUL]: 't' } }]],
    ['NUL in metadata', 'upsert-data/ns', [{ id: 'x', content: { t: 'x' }, metadata: { m: NUL } }]],
    ['a lone surrogate in content', 'upsert-data/ns', [{ id: 'x', content: { t: SURROGATE } }]],
    ['NUL in a query', 'search/ns', { query: NUL }],
    ['NUL in a filter', 'search/ns', { query: 'x', filter: `title = '${NUL}'` }],
    ['a lone surrogate in a filter', 'search/ns', { query: 'x', filter: `title = '${SURROGATE}'` }],
    ['NUL in fetch ids', 'fetch/ns', { ids: [NUL] }],
    ['NUL in a prefix', 'fetch/ns', { prefix: NUL }],
    ['NUL in a range cursor', 'range/ns', { cursor: NUL, limit: 5 }],
    ['NUL in a delete filter', 'delete/ns', { filter: `title = '${NUL}'` }],
  ])('%s → 400 invalid_characters', async (_label, route, body) => {
    expectError(await callIndex(ctx.app, index.endpoint, route, index.token, body), 400, 'invalid_characters');
  });

  test.each([
    ['NUL in the namespace', `upsert-data/a%00b`],
    ['an encoded lone surrogate in the namespace', 'upsert-data/%ED%A0%80'],
    ['malformed percent-encoding in the namespace', 'upsert-data/a%ZZ'],
    ['a truncated percent-encoding in the namespace', 'upsert-data/a%C3'],
  ])('%s → 400 invalid_characters before anything is stored', async (_label, route) => {
    const response = await callIndex(ctx.app, index.endpoint, route, index.token, [{ id: 'x', content: { t: 'y' } }]);
    expectError(response, 400, 'invalid_characters');
    expect(json(await callIndex(ctx.app, index.endpoint, 'list-namespaces', index.token)).result).toEqual(['', 'ns']);
  });

  test('NUL in the endpoint of the path → 400 before the token is looked up', async () => {
    expectError(await callIndex(ctx.app, 'a%00b', 'info', index.token), 400, 'invalid_characters');
  });

  test('nesting: 64 levels of JSON are fine, 65 are 400 nesting_too_deep, 100,000 too', async () => {
    const ok = await callIndex(ctx.app, index.endpoint, 'upsert-data/deep', index.token, [
      { id: 'deep', content: { t: nested(60) } },
    ]);
    expect(ok.statusCode, ok.body).toBe(200);
    const deep = [{ id: 'deep', content: { t: nested(62) } }]; // array, document, content, t, 62 levels
    expectError(
      await callIndex(ctx.app, index.endpoint, 'upsert-data/deep', index.token, deep),
      400,
      'nesting_too_deep',
    );
    const response = await ctx.app.inject({
      method: 'POST',
      url: `/indexes/${index.endpoint}/upsert-data/deep`,
      headers: { authorization: `Bearer ${index.token}`, 'content-type': 'application/json' },
      payload: `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    });
    expectError(response, 400, 'nesting_too_deep');
  });

  test('__proto__ keys → 400 invalid_json', async () => {
    const response = await ctx.app.inject({
      method: 'POST',
      url: `/indexes/${index.endpoint}/upsert-data/ns`,
      headers: { authorization: `Bearer ${index.token}`, 'content-type': 'application/json' },
      payload: '[{"id":"p","content":{"__proto__":{"polluted":true}}}]',
    });
    expectError(response, 400, 'invalid_json');
  });

  test('a query of 4,096 characters is searched, emoji counting one each', async () => {
    for (const query of ['document '.repeat(456).slice(0, 4096), `document ${'🚀'.repeat(4087)}`]) {
      const response = await callIndex(ctx.app, index.endpoint, 'search/ns', index.token, { query });
      expect(response.statusCode, response.body).toBe(200);
      expect(json(response).result.length).toBeGreaterThan(0);
    }
  });

  test('an IN list of 1,000 values and 1,000 AND-ed conditions work', async () => {
    const values = Array.from({ length: 1000 }, (_, i) => `'document ${i}'`).join(', ');
    const inList = await callIndex(ctx.app, index.endpoint, 'search/ns', index.token, {
      query: 'document',
      topK: 50,
      filter: `title IN (${values}) AND @metadata.group = 'g1'`,
    });
    expect(inList.statusCode, inList.body).toBe(200);
    expect(json(inList).result).toHaveLength(10);
    const ands = Array.from({ length: 1000 }, (_, i) => `n != ${i + 5}`).join(' AND ');
    const deleted = await callIndex(ctx.app, index.endpoint, 'delete/ns', index.token, { filter: ands });
    expect(json(deleted).result).toEqual({ deleted: 5 });
  });

  test.each([
    ['a filter over 65,536 characters', { query: 'x', filter: `title = '${'x'.repeat(70_000)}'` }, 'filter_too_large'],
    ['2,001 conditions', { query: 'x', filter: Array(2001).fill('n = 1').join(' OR ') }, 'filter_too_large'],
    // As a delete's filter: the limit counts what was sent, padding included.
    [
      'a short filter padded past 65,536 characters',
      { query: 'x', filter: `n = 1${' '.repeat(65_535)}` },
      'filter_too_large',
    ],
    ['a number out of range in a filter', { query: 'x', filter: 'n > 1e999' }, 'invalid_filter'],
    ['65 nested parentheses', { query: 'x', filter: `${'('.repeat(65)}n = 1${')'.repeat(65)}` }, 'invalid_filter'],
    ['topK 1e308', { query: 'x', topK: 1e308 }, 'invalid_request'],
    ['topK "NaN"', { query: 'x', topK: 'NaN' }, 'invalid_request'],
    ['semanticWeight 1e308', { query: 'x', semanticWeight: 1e308 }, 'invalid_request'],
    ['a query over 4,096 characters', { query: 'document '.repeat(456) }, 'invalid_request'],
    ['a query of 4,097 emoji', { query: '🚀'.repeat(4097) }, 'invalid_request'],
  ])('search with %s → 400 %s', async (_label, body, code) => {
    expectError(await callIndex(ctx.app, index.endpoint, 'search/ns', index.token, body), 400, code);
  });

  test.each([
    ['limit 2^53', { cursor: '', limit: 2 ** 53 }],
    ['limit 1e308', { cursor: '', limit: 1e308 }],
    ['limit 10,001', { cursor: '', limit: 10_001 }],
    ['a cursor that is not one', { cursor: '!!not a cursor!!', limit: 5 }],
    ['a cursor of 1e308', { cursor: 1e308, limit: 5 }],
  ])('range with %s → 400 invalid_request', async (_label, body) => {
    expectError(await callIndex(ctx.app, index.endpoint, 'range/ns', index.token, body), 400, 'invalid_request');
  });

  test('more than 5,000 documents per upsert or ids per delete → 400, even without a per-request quota', async () => {
    await setQuotas(ctx.store, index.id, { max_writes_per_request: -1 });
    const docs = Array.from({ length: 5001 }, (_, i) => ({ id: `many-${i}`, content: { t: 'x' } }));
    expectError(
      await callIndex(ctx.app, index.endpoint, 'upsert-data/many', index.token, docs),
      400,
      'request_limit_exceeded',
    );
    const ids = docs.map((doc) => doc.id);
    expectError(
      await callIndex(ctx.app, index.endpoint, 'delete/many', index.token, { ids }),
      400,
      'request_limit_exceeded',
    );
    const upsert = await callIndex(ctx.app, index.endpoint, 'upsert-data/many', index.token, docs.slice(0, 5000));
    expect(upsert.statusCode, upsert.body).toBe(200);
    expect(
      json(await callIndex(ctx.app, index.endpoint, 'delete/many', index.token, { ids: ids.slice(1) })).result,
    ).toEqual({
      deleted: 4999,
    });
  });

  test('a delete or fetch naming several selectors → 400 invalid_request, and nothing is deleted', async () => {
    const ids = async () =>
      json(await callIndex(ctx.app, index.endpoint, 'range/ns', index.token, { cursor: '', limit: 100 })).result
        .vectors;
    const before = await ids();
    expect(before.length).toBeGreaterThan(2);
    for (const body of [
      { prefix: 'doc-1', filter: "@metadata.group = 'g0'" },
      { ids: ['doc-2'], filter: "@metadata.group = 'g1'" },
      { ids: ['doc-2'], prefix: 'doc-' },
    ]) {
      expectError(await callIndex(ctx.app, index.endpoint, 'delete/ns', index.token, body), 400, 'invalid_request');
    }
    const both = { ids: ['doc-2'], prefix: 'doc-' };
    expectError(await callIndex(ctx.app, index.endpoint, 'fetch/ns', index.token, both), 400, 'invalid_request');
    expect(await ids()).toEqual(before);
  });

  test('a path segment over 2,048 characters → 414 uri_too_long in the data-plane envelope', async () => {
    expectError(
      await callIndex(ctx.app, index.endpoint, `search/${'x'.repeat(3000)}`, index.token, { query: 'x' }),
      414,
      'uri_too_long',
    );
  });

  test('namespaces named like paths are only names', async () => {
    // ("..", "." and "%2e%2e" segments are resolved by URL parsing before any request is made.)
    for (const namespace of ['...', '..a', 'a%2Fb', '%2e%2e%2F']) {
      const route = `upsert-data/${namespace}`;
      const response = await ctx.app.inject({
        method: 'POST',
        url: `/indexes/${index.endpoint}/${route}`,
        headers: { authorization: `Bearer ${index.token}`, 'content-type': 'application/json' },
        payload: JSON.stringify([{ id: 'x', content: { t: namespace } }]),
      });
      expect(response.statusCode, `${namespace}: ${response.body}`).toBe(200);
    }
    const names = json(await callIndex(ctx.app, index.endpoint, 'list-namespaces', index.token)).result;
    expect(names).toEqual(expect.arrayContaining(['...', '..a', 'a/b', '../']));
  });
});

describe('management', () => {
  test.each([
    ['an index name', 'POST', '/v2/search', { name: NUL, region: 'eu-west-1', type: 'payg' }],
    ['a lone surrogate in an index name', 'POST', '/v2/search', { name: SURROGATE, region: 'eu-west-1', type: 'payg' }],
    ['a region', 'POST', '/v2/search', { name: 'ok', region: NUL, type: 'payg' }],
    ['a rename', 'POST', '/v2/search/00000000-0000-0000-0000-000000000000/rename', { name: NUL }],
    ['an index id', 'GET', '/v2/search/a%00b', undefined],
    ['a messaging id', 'POST', '/v2/messaging/enable-prodpack/%00', undefined],
    ['a stats period', 'GET', `/v2/search/${'0'.repeat(8)}/stats?period=%00`, undefined],
  ] as const)('NUL in %s → 400 invalid_characters', async (_label, method, url, payload) => {
    const response = await ctx.app.inject({
      method,
      url,
      headers: { authorization: account.auth },
      ...(payload ? { payload } : {}),
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(json(response)).toMatchObject({ code: 'invalid_characters', error: expect.any(String) });
  });

  test('NUL in the Basic email → 401 (no account can have it), never a store error', async () => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/v2/search',
      headers: { authorization: basic(`${account.email}\u0000`, account.apiKey) },
    });
    expect(response.statusCode).toBe(401);
    expect(json(response).code).toBe('unauthorized');
  });
});
