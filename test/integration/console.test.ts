import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { API_MAX_TOP_K, API_MAX_WRITE_BATCH } from '../../console/js/limits.js';
import { MAX_TOP_K } from '../../src/engine/query/search-request.js';
import { CONSOLE_CSP } from '../../src/http/console/console.plugin.js';
import { MAX_WRITE_BATCH } from '../../src/services/data-plane/data-plane.service.js';
import { ACTIONS } from '../../src/services/key-actions.js';
import { createTestApp, json, type TestContext } from '../helpers/app.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp({ env: { SEARCHPLANE_DATA_DOMAIN: 'search.test' } });
});
afterAll(async () => {
  await ctx?.close();
});

const get = (url: string, headers: Record<string, string> = {}) => ctx.app.inject({ method: 'GET', url, headers });

describe('web console', () => {
  test('/ redirects to /console', async () => {
    const response = await get('/');
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/console');
  });

  test.each(['/console', '/console/'])('%s serves the page with a strict CSP and no-sniff', async (url) => {
    const response = await get(url);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('<script type="module" src="/console/js/app.js"></script>');
    // No inline script anywhere: the CSP would block it.
    expect(response.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const csp = response.headers['content-security-policy'];
    expect(csp).toBe(CONSOLE_CSP);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers.etag).toMatch(/^"[\w-]+"$/);
  });

  test('assets have their types, and a matching ETag answers 304', async () => {
    const script = await get('/console/js/app.js');
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['content-security-policy']).toBe(CONSOLE_CSP);
    const styles = await get('/console/css/base.css');
    expect(styles.headers['content-type']).toBe('text/css; charset=utf-8');
    const again = await get('/console/js/app.js', { 'if-none-match': String(script.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  test('settings tell the page what the API cannot: data domain, regions, plans, periods, key actions', async () => {
    const response = await get('/console/settings.json');
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(json(response)).toEqual({
      dataDomain: 'search.test',
      regions: ['eu-west-1', 'us-central1'],
      plans: [
        { name: 'free', available: true },
        { name: 'payg', available: true },
        { name: 'fixed', available: false },
      ],
      statsPeriods: ['1h', '3h', '12h', '1d', '3d', '7d', '30d'],
      bodyLimitBytes: 1_048_576,
      actions: [...ACTIONS],
    });
  });

  test.each([
    '/console/missing.js',
    '/console/../package.json',
    '/console/%2e%2e/package.json',
    '/console/..%2fpackage.json',
    '/console/js/../../src/app.ts',
  ])('%s is not a console file: 404 route_not_found', async (url) => {
    const response = await get(url);
    expect(response.statusCode).toBe(404);
    expect(json(response).code).toBe('route_not_found');
  });

  test('console routes are not in the OpenAPI document', async () => {
    const paths = Object.keys(json(await get('/openapi.json')).paths);
    expect(paths.filter((path) => path === '/' || path.startsWith('/console'))).toEqual([]);
  });

  test('the management API and the data plane keep their own headers', async () => {
    const response = await get('/v2/search');
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-security-policy']).toBeUndefined();
  });
});

test("the console's copies of the API's own per-request ceilings match the server's", () => {
  expect([API_MAX_TOP_K, API_MAX_WRITE_BATCH]).toEqual([MAX_TOP_K, MAX_WRITE_BATCH]);
});
