import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestApp, json, type TestContext } from '../helpers/app.js';
import { callIndex, createAccountWithIndex, type TestIndex } from '../helpers/data-plane.js';

let ctx: TestContext;
let index: TestIndex;

beforeAll(async () => {
  ctx = await createTestApp({ env: { SEARCHPLANE_BODY_LIMIT_BYTES: '4096', SEARCHPLANE_DATA_DOMAIN: 'search.test' } });
  index = (await createAccountWithIndex(ctx.app)).index;
});
afterAll(async () => ctx.close());

const bearer = () => ({ authorization: `Bearer ${index.token}` });

describe('envelope', () => {
  test('success is {"result": ...} with JSON content type', async () => {
    const response = await callIndex(ctx.app, index.endpoint, 'upsert-data/env', index.token, [
      { id: 'a', content: { t: 'hello world' } },
    ]);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(json(response)).toEqual({ result: 'Success' });
  });

  test('an unknown route is 404 in the envelope', async () => {
    for (const url of [
      `/indexes/${index.endpoint}/nope`,
      `/indexes/${index.endpoint}`,
      `/indexes/${index.endpoint}/query/ns`,
    ]) {
      const response = await ctx.app.inject({ method: 'POST', url, headers: bearer() });
      expect(response.statusCode, url).toBe(404);
      expect(json(response)).toEqual({ error: expect.any(String), status: 404, code: 'route_not_found' });
    }
  });

  test('a method a route does not accept is 404 in the envelope', async () => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: `/indexes/${index.endpoint}/search/env`,
      headers: bearer(),
    });
    expect(response.statusCode).toBe(404);
    expect(json(response).status).toBe(404);
  });

  test('malformed JSON is 400 in the envelope', async () => {
    const response = await ctx.app.inject({
      method: 'POST',
      url: `/indexes/${index.endpoint}/search/env`,
      headers: { ...bearer(), 'content-type': 'application/json' },
      payload: '{"query": ',
    });
    expect(response.statusCode).toBe(400);
    expect(json(response)).toEqual({ error: expect.stringMatching(/JSON/), status: 400, code: 'invalid_json' });
  });

  test('a body over the limit is 413 in the envelope', async () => {
    const response = await callIndex(ctx.app, index.endpoint, 'upsert-data/env', index.token, [
      { id: 'big', content: { t: 'x'.repeat(5000) } },
    ]);
    expect(response.statusCode).toBe(413);
    expect(json(response)).toEqual({ error: expect.any(String), status: 413, code: 'payload_too_large' });
  });

  test('schema violations are 400 and name the field', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['search/env', { query: 'x', semanticWeight: 1.5 }, /semanticWeight/],
      ['search/env', { query: 'x', semanticWeight: -0.1 }, /semanticWeight/],
      ['search/env', { query: 'x', topK: 0 }, /topK/],
      ['search/env', { topK: 5 }, /query/],
      ['range/env', { cursor: '' }, /limit/],
      ['fetch/env', { nothing: true }, /./],
      ['upsert-data/env', [{ id: 'x', content: 'not an object' }], /content/],
      ['upsert-data/env', [{ content: { t: 'x' } }], /id/],
    ];
    for (const [route, body, message] of cases) {
      const response = await callIndex(ctx.app, index.endpoint, route, index.token, body);
      expect(response.statusCode, route).toBe(400);
      expect(json(response).status).toBe(400);
      expect(json(response).error, JSON.stringify(body)).toMatch(message);
    }
  });
});

describe('request forms', () => {
  test('parameterless routes accept an empty body, [] and GET', async () => {
    const empty = await ctx.app.inject({ method: 'POST', url: `/indexes/${index.endpoint}/info`, headers: bearer() });
    const array = await callIndex(ctx.app, index.endpoint, 'info', index.token, []);
    const get = await ctx.app.inject({
      method: 'GET',
      url: `/indexes/${index.endpoint}/list-namespaces`,
      headers: bearer(),
    });
    for (const response of [empty, array, get]) expect(response.statusCode).toBe(200);
    expect(json(empty).result).toEqual({
      vectorCount: expect.any(Number),
      pendingVectorCount: expect.any(Number),
      indexSize: expect.any(Number),
      namespaces: expect.any(Object),
    });
    expect(json(get).result).toEqual(expect.any(Array));
  });

  test('a body without a JSON content type (curl -d) is read as JSON', async () => {
    const response = await ctx.app.inject({
      method: 'POST',
      url: `/indexes/${index.endpoint}/upsert-data/curl`,
      headers: { ...bearer(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: JSON.stringify([{ id: 'c', content: { t: 'curl' } }]),
    });
    expect(response.statusCode).toBe(200);
    const fetched = await callIndex(ctx.app, index.endpoint, 'fetch/curl', index.token, ['c']);
    expect(json(fetched).result).toEqual([{ id: 'c' }]);
  });

  test('no namespace segment (or an empty one) is the default namespace ""', async () => {
    await callIndex(ctx.app, index.endpoint, 'upsert-data', index.token, [{ id: 'd', content: { t: 'default' } }]);
    const viaSlash = await callIndex(ctx.app, index.endpoint, 'fetch/', index.token, { ids: ['d'], includeData: true });
    expect(json(viaSlash).result).toEqual([{ id: 'd', content: { t: 'default' } }]);
    const info = json(await callIndex(ctx.app, index.endpoint, 'info', index.token)).result;
    expect(info.namespaces['']).toEqual({ vectorCount: 1, pendingVectorCount: expect.any(Number) });
  });

  test('the default namespace "" exists from the start: listed before any write, and after a reset', async () => {
    const fresh = (await createAccountWithIndex(ctx.app)).index;
    const list = async () => json(await callIndex(ctx.app, fresh.endpoint, 'list-namespaces', fresh.token)).result;
    const info = async () => json(await callIndex(ctx.app, fresh.endpoint, 'info', fresh.token)).result;
    expect(await list()).toEqual(['']);
    expect((await info()).namespaces).toEqual({ '': { vectorCount: 0, pendingVectorCount: 0 } });
    await callIndex(ctx.app, fresh.endpoint, 'upsert-data/other', fresh.token, [{ id: 'o', content: { t: 'x' } }]);
    expect([...(await list())].sort()).toEqual(['', 'other']);
    expect(Object.keys((await info()).namespaces).sort()).toEqual(['', 'other']);
    expect((await callIndex(ctx.app, fresh.endpoint, 'reset', fresh.token)).statusCode).toBe(200);
    expect((await info()).namespaces['']).toEqual({ vectorCount: 0, pendingVectorCount: 0 });
  });

  test('namespace names are URL-decoded', async () => {
    await callIndex(ctx.app, index.endpoint, 'upsert-data/caf%C3%A9%20menu', index.token, [
      { id: 'x', content: { t: 'y' } },
    ]);
    const names = json(await callIndex(ctx.app, index.endpoint, 'list-namespaces', index.token)).result;
    expect(names).toContain('café menu');
  });

  test('search results carry content and metadata only when asked for', async () => {
    await callIndex(ctx.app, index.endpoint, 'upsert-data/flags', index.token, [
      { id: 'f', content: { t: 'flagged words' }, metadata: { m: 1 } },
    ]);
    const bare = json(
      await callIndex(ctx.app, index.endpoint, 'search/flags', index.token, { query: 'flagged', topK: 1 }),
    );
    expect(bare.result).toEqual([{ id: 'f', score: expect.any(Number) }]);
    const full = json(
      await callIndex(ctx.app, index.endpoint, 'search/flags', index.token, {
        query: 'flagged',
        topK: 1,
        includeData: true,
        includeMetadata: true,
        filter: null,
        reranking: null,
      }),
    );
    expect(full.result).toEqual([
      { id: 'f', score: expect.any(Number), content: { t: 'flagged words' }, metadata: { m: 1 } },
    ]);
  });

  test('input enrichment is on by default and only where the index allows it', async () => {
    const { index: own } = await createAccountWithIndex(ctx.app);
    await callIndex(ctx.app, own.endpoint, 'upsert-data', own.token, [{ id: 'w', content: { t: 'wormhole travel' } }]);
    const typo = { query: 'wormhloe', semanticWeight: 0, topK: 5 };
    const ids = async (body: object) =>
      json(await callIndex(ctx.app, own.endpoint, 'search', own.token, body)).result.map(
        (hit: { id: string }) => hit.id,
      );
    expect(await ids(typo)).toEqual(['w']);
    expect(await ids({ ...typo, inputEnrichment: false })).toEqual([]);
    await ctx.store.db
      .updateTable('search_indexes')
      .set({ input_enrichment_enabled: 0 })
      .where('id', '=', own.id)
      .execute();
    expect(await ids({ ...typo, inputEnrichment: true })).toEqual([]);
  });

  test('delete accepts a single id, an id list, {ids}, {prefix} and {filter}', async () => {
    const docs = ['p1', 'p2', 'q1', 'q2', 'r1'].map((id) => ({ id, content: { kind: id[0] } }));
    await callIndex(ctx.app, index.endpoint, 'upsert-data/del', index.token, docs);
    const deleted = async (body: unknown) =>
      json(await callIndex(ctx.app, index.endpoint, 'delete/del', index.token, body)).result;
    expect(await deleted('r1')).toEqual({ deleted: 1 });
    expect(await deleted(['q1', 'nope'])).toEqual({ deleted: 1 });
    expect(await deleted({ ids: ['q2'] })).toEqual({ deleted: 1 });
    expect(await deleted({ prefix: 'p' })).toEqual({ deleted: 2 });
    await callIndex(ctx.app, index.endpoint, 'upsert-data/del', index.token, docs);
    expect(await deleted({ filter: "kind = 'q'" })).toEqual({ deleted: 2 });
  });

  test('reset?all empties every namespace; delete-namespace refuses the default and unknown names', async () => {
    await callIndex(ctx.app, index.endpoint, 'upsert-data/one', index.token, [{ id: '1', content: { t: 'x' } }]);
    await callIndex(ctx.app, index.endpoint, 'upsert-data/two', index.token, [{ id: '2', content: { t: 'x' } }]);
    const reset = await callIndex(ctx.app, index.endpoint, 'reset?all', index.token);
    expect(json(reset)).toEqual({ result: 'Success' });
    expect(json(await callIndex(ctx.app, index.endpoint, 'info', index.token)).result.vectorCount).toBe(0);

    const defaultNs = await callIndex(ctx.app, index.endpoint, 'delete-namespace', index.token);
    expect(defaultNs.statusCode).toBe(400);
    const unknown = await callIndex(ctx.app, index.endpoint, 'delete-namespace/never-created', index.token);
    expect(unknown.statusCode).toBe(404);
    expect(json(unknown).status).toBe(404);
  });

  test('reset?all=false and ?all=0 reset only their namespace; ?all=true every one; another value is refused', async () => {
    const counts = async () =>
      Object.fromEntries(
        Object.entries(json(await callIndex(ctx.app, index.endpoint, 'info', index.token)).result.namespaces).map(
          ([name, ns]) => [name, (ns as { vectorCount: number }).vectorCount],
        ),
      );
    const fill = async () => {
      for (const ns of ['keep', 'wipe'])
        await callIndex(ctx.app, index.endpoint, `upsert-data/${ns}`, index.token, [{ id: ns, content: { t: 'x' } }]);
    };
    await fill();
    for (const all of ['false', '0']) {
      expect(json(await callIndex(ctx.app, index.endpoint, `reset/wipe?all=${all}`, index.token))).toEqual({
        result: 'Success',
      });
      expect(await counts()).toMatchObject({ keep: 1, wipe: 0 });
      await fill();
    }
    const refused = await callIndex(ctx.app, index.endpoint, 'reset/wipe?all=yes', index.token);
    expect([refused.statusCode, json(refused).code]).toEqual([400, 'invalid_request']);
    expect(await counts()).toMatchObject({ keep: 1, wipe: 1 });
    await callIndex(ctx.app, index.endpoint, 'reset/wipe?all=true', index.token);
    expect(await counts()).toMatchObject({ keep: 0, wipe: 0 });
  });
});

describe('host-based routing (SEARCHPLANE_DATA_DOMAIN)', () => {
  test('Host: {endpoint}.{domain} serves the same routes at /', async () => {
    const host = `${index.endpoint}.search.test:8080`;
    const upsert = await ctx.app.inject({
      method: 'POST',
      url: '/upsert-data/hosted',
      headers: { host, ...bearer(), 'content-type': 'application/json' },
      payload: [{ id: 'h', content: { t: 'by host' } }],
    });
    expect(upsert.statusCode).toBe(200);
    const fetched = await ctx.app.inject({
      method: 'POST',
      url: '/fetch/hosted',
      headers: { host, authorization: `Bearer ${index.read_only_token}`, 'content-type': 'application/json' },
      payload: { ids: ['h'], includeData: true },
    });
    expect(json(fetched)).toEqual({ result: [{ id: 'h', content: { t: 'by host' } }] });
    const pathBased = await callIndex(ctx.app, index.endpoint, 'fetch/hosted', index.token, ['h']);
    expect(json(pathBased).result).toEqual([{ id: 'h' }]);
  });

  test('a host-based request with the wrong token or route gets the data-plane envelope', async () => {
    const host = `${index.endpoint}.search.test`;
    const unauthorized = await ctx.app.inject({ method: 'POST', url: '/info', headers: { host } });
    expect(unauthorized.statusCode).toBe(401);
    expect(json(unauthorized)).toEqual({
      error: 'Unauthorized: Invalid auth token',
      status: 401,
      code: 'unauthorized',
    });
    const unknown = await ctx.app.inject({ method: 'POST', url: '/v2/search', headers: { host, ...bearer() } });
    expect(unknown.statusCode).toBe(404);
    expect(json(unknown).status).toBe(404);
  });

  test('other hosts keep the management API', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/v2/search', headers: { host: 'search.test' } });
    expect(response.statusCode).toBe(401);
    expect(json(response).code).toBe('unauthorized');
  });
});
