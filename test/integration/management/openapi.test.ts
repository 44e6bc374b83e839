import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestApp, json, registeredRoutes, type TestContext } from '../../helpers/app.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(async () => ctx.close());

test('/openapi.json is OpenAPI 3.1 and documents every API route with its errors', async () => {
  const response = await ctx.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  const document = json(response);
  expect(document.openapi).toBe('3.1.0');

  const documented = new Set<string>();
  for (const [path, item] of Object.entries<Record<string, { responses: Record<string, unknown> }>>(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      documented.add(`${method.toUpperCase()} ${path}`);
      if (path.startsWith('/v2/')) {
        expect(Object.keys(operation.responses), `${method} ${path}`).toEqual(
          expect.arrayContaining(['200', '401', '429', '500']),
        );
      }
    }
  }
  const routes = registeredRoutes(ctx.app);
  expect(routes.length).toBeGreaterThan(15);
  for (const [method, url] of routes) {
    // The docs and the web console (`/`, `/console/...`) are pages, not API: hidden from the document.
    if (
      url.startsWith('/docs') ||
      url.startsWith('/console') ||
      url === '/' ||
      url === '/openapi.json' ||
      method === 'HEAD'
    )
      continue;
    const path = url.replace(/:([A-Za-z_]+)/g, '{$1}');
    expect(documented, `${method} ${url}`).toContain(`${method} ${path}`);
  }
  expect(document.components.schemas.SearchIndex.required).toHaveLength(21);
  // reset-password takes no body as before, or one with grace_seconds.
  const reset = document.paths['/v2/search/{id}/reset-password'].post;
  expect(reset.requestBody.required).toBe(false);
  expect(reset['x-optional-body']).toBeUndefined();
});

test('/docs serves the interactive documentation page', async () => {
  const response = await ctx.app.inject({ method: 'GET', url: '/docs/' });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/text\/html/);
  expect(response.body).toContain('swagger');
});
