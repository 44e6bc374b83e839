import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestApp, json, type TestContext } from '../../helpers/app.js';

interface Operation {
  operationId?: string;
  parameters?: { in: string; name: string; required?: boolean }[];
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
}

/** [method, path, operation] for every operation of the document. */
function operationsOf(document: { paths: Record<string, Record<string, Operation>> }): [string, string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]): [string, string, Operation] => [method, path, operation]),
  );
}

describe('/openapi.json', () => {
  let ctx: TestContext;
  let document: any;
  beforeAll(async () => {
    ctx = await createTestApp();
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/openapi.json',
      headers: { host: 'search.internal:9000' },
    });
    expect(response.statusCode).toBe(200);
    document = json(response);
  });
  afterAll(async () => ctx.close());

  test('every operation has its own operationId', () => {
    const ids = operationsOf(document).map(([method, path, operation]) => {
      expect(operation.operationId, `${method} ${path}`).toMatch(/^[a-zA-Z]+$/);
      return operation.operationId;
    });
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('path parameters are exactly the ones in the path', () => {
    for (const [method, path, operation] of operationsOf(document)) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).sort();
      const declared = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path');
      expect(declared.map((parameter) => parameter.name).sort(), `${method} ${path}`).toEqual(inPath);
      for (const parameter of declared) expect(parameter.required, `${method} ${path} ${parameter.name}`).toBe(true);
    }
  });

  test('the data plane is documented with and without a namespace', () => {
    expect(document.paths['/indexes/{endpoint}/search'].post.operationId).toBe('searchDocuments');
    expect(document.paths['/indexes/{endpoint}/search/{namespace}'].post.operationId).toBe(
      'searchDocumentsInNamespace',
    );
    expect(Object.keys(document.paths['/indexes/{endpoint}/info']).sort()).toEqual(['get', 'post']);
  });

  test('every operation documents a client error and 500 with an error schema (but /healthz and /readyz: no 4xx)', () => {
    for (const [method, path, operation] of operationsOf(document)) {
      const statuses = Object.keys(operation.responses);
      expect(statuses, `${method} ${path}`).toContain('500');
      if (path !== '/healthz' && path !== '/readyz')
        expect(
          statuses.some((status) => status.startsWith('4')),
          `${method} ${path}`,
        ).toBe(true);
      for (const status of statuses.filter((code) => Number(code) >= 400)) {
        const ref = operation.responses[status].content?.['application/json']?.schema?.$ref;
        const expected = path.startsWith('/indexes/')
          ? '#/components/schemas/DataPlaneError'
          : '#/components/schemas/ManagementError';
        expect(ref, `${method} ${path} ${status}`).toBe(expected);
      }
    }
  });

  test('/metrics is documented as text with its optional token', () => {
    const operation = document.paths['/metrics'].get;
    expect(Object.keys(operation.responses['200'].content)).toEqual(['text/plain']);
    expect(operation.security).toEqual([{}, { metricsToken: [] }]);
    expect(document.components.securitySchemes.metricsToken).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  test('servers is the address the document was fetched from, and the license is MIT', async () => {
    expect(document.servers).toEqual([{ url: 'http://search.internal:9000', description: expect.any(String) }]);
    expect(document.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    const docs = await ctx.app.inject({ method: 'GET', url: '/docs/json', headers: { host: '127.0.0.1:8080' } });
    expect(json(docs).servers).toEqual([{ url: 'http://127.0.0.1:8080', description: expect.any(String) }]);
    const ipv6 = await ctx.app.inject({ method: 'GET', url: '/openapi.json', headers: { host: '[::1]:8080' } });
    expect(json(ipv6).servers).toEqual([{ url: 'http://[::1]:8080', description: expect.any(String) }]);
  });

  test('a Host header that is not a plain host is not echoed into the document', async () => {
    for (const host of ['evil.example"><script>', 'a b', 'x/y@z']) {
      const response = await ctx.app.inject({ method: 'GET', url: '/openapi.json', headers: { host } });
      expect(response.statusCode).toBe(200);
      expect(json(response).servers, host).toBeUndefined();
      expect(response.body.includes(host), host).toBe(false);
    }
  });
});

test('with SEARCHPLANE_PUBLIC_URL, servers is that URL', async () => {
  const ctx = await createTestApp({ env: { SEARCHPLANE_PUBLIC_URL: 'https://search.example.org/' } });
  try {
    const response = await ctx.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(json(response).servers).toEqual([{ url: 'https://search.example.org', description: expect.any(String) }]);
  } finally {
    await ctx.close();
  }
});
