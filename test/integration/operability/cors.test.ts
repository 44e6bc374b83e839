import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestApp, type TestContext } from '../../helpers/app.js';
import { createAccountWithIndex, type TestIndex } from '../../helpers/data-plane.js';
import type { TestAccount } from '../../helpers/factories.js';

const APP_ORIGIN = 'https://app.example.com';
const DEV_ORIGIN = 'http://localhost:3000';

/** What a browser sends before `fetch(url, {method: 'POST', headers: {authorization, content-type, ...}})`. */
function preflight(ctx: TestContext, url: string, origin: string, headers: Record<string, string> = {}) {
  return ctx.app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,upstash-telemetry-sdk',
      ...headers,
    },
  });
}

function search(ctx: TestContext, index: TestIndex, origin: string, token = index.read_only_token) {
  return ctx.app.inject({
    method: 'POST',
    url: `/indexes/${index.endpoint}/search/movies`,
    headers: { origin, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: { query: 'star', topK: 1 },
  });
}

describe('with SEARCHPLANE_CORS_ORIGINS set to two origins', () => {
  let ctx: TestContext;
  let account: TestAccount;
  let index: TestIndex;
  beforeAll(async () => {
    ctx = await createTestApp({ env: { SEARCHPLANE_CORS_ORIGINS: `${APP_ORIGIN}, ${DEV_ORIGIN}/` } });
    ({ account, index } = await createAccountWithIndex(ctx.app));
  });
  afterAll(async () => ctx.close());

  test.each([APP_ORIGIN, DEV_ORIGIN])('a preflight from %s answers the SDK’s methods and headers', async (origin) => {
    const response = await preflight(ctx, `/indexes/${index.endpoint}/search/movies`, origin);
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(origin);
    expect(response.headers.vary).toContain('Origin');
    expect(String(response.headers['access-control-allow-methods']).split(', ')).toEqual(
      expect.arrayContaining(['GET', 'POST']),
    );
    expect(String(response.headers['access-control-allow-headers']).split(', ')).toEqual(
      expect.arrayContaining([
        'authorization',
        'content-type',
        'upstash-telemetry-sdk',
        'upstash-telemetry-platform',
        'upstash-telemetry-runtime',
      ]),
    );
    expect(response.headers['access-control-max-age']).toBe('600');
  });

  test('a search from an allowed origin with the read-only token is readable by the page', async () => {
    const response = await search(ctx, index, APP_ORIGIN);
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(String(response.headers['access-control-expose-headers']).split(', ')).toEqual(
      expect.arrayContaining(['x-request-id', 'retry-after']),
    );
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
  });

  test('error answers carry the CORS headers too, so the page can read a 401', async () => {
    const response = await search(ctx, index, APP_ORIGIN, 'x'.repeat(43));
    expect(response.statusCode).toBe(401);
    expect(response.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
  });

  test('another origin gets no CORS headers and its preflight is refused', async () => {
    const evil = 'https://evil.example.com';
    const refused = await preflight(ctx, `/indexes/${index.endpoint}/search/movies`, evil);
    expect(refused.statusCode).toBe(404);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    expect(refused.headers['access-control-allow-methods']).toBeUndefined();
    const response = await search(ctx, index, evil);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect(response.headers['access-control-expose-headers']).toBeUndefined();
  });

  test('the management API never answers CORS', async () => {
    const refused = await preflight(ctx, '/v2/search', APP_ORIGIN);
    expect(refused.statusCode).toBe(404);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    const list = await ctx.app.inject({
      method: 'GET',
      url: '/v2/search',
      headers: { origin: APP_ORIGIN, authorization: account.auth },
    });
    expect(list.statusCode).toBe(200);
    expect(list.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('with SEARCHPLANE_CORS_ORIGINS=* and a data domain', () => {
  let ctx: TestContext;
  let index: TestIndex;
  beforeAll(async () => {
    ctx = await createTestApp({ env: { SEARCHPLANE_CORS_ORIGINS: '*', SEARCHPLANE_DATA_DOMAIN: 'search.test' } });
    ({ index } = await createAccountWithIndex(ctx.app));
  });
  afterAll(async () => ctx.close());

  test('any origin may call, path-based and host-based', async () => {
    const byPath = await preflight(ctx, `/indexes/${index.endpoint}/search/movies`, 'https://anyone.example');
    expect(byPath.statusCode).toBe(204);
    expect(byPath.headers['access-control-allow-origin']).toBe('*');

    const byHost = await preflight(ctx, '/search/movies', 'https://anyone.example', {
      host: `${index.endpoint}.search.test`,
    });
    expect(byHost.statusCode).toBe(204);
    expect(byHost.headers['access-control-allow-origin']).toBe('*');

    const response = await search(ctx, index, 'https://anyone.example');
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('by default (no SEARCHPLANE_CORS_ORIGINS)', () => {
  let ctx: TestContext;
  let index: TestIndex;
  beforeAll(async () => {
    ctx = await createTestApp();
    ({ index } = await createAccountWithIndex(ctx.app));
  });
  afterAll(async () => ctx.close());

  test('no CORS headers and no preflight route', async () => {
    const refused = await preflight(ctx, `/indexes/${index.endpoint}/search/movies`, APP_ORIGIN);
    expect(refused.statusCode).toBe(404);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    const response = await search(ctx, index, APP_ORIGIN);
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });
});
