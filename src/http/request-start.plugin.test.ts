import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, test } from 'vitest';
import { errors } from '../errors.js';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js';
import requestStart from './request-start.plugin.js';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** An app with the first hook and a plane whose own onRequest hook refuses requests without `x-pass`. */
async function build(accepting = () => true, seen: string[] = []): Promise<FastifyInstance> {
  app = Fastify({ requestIdHeader: false, genReqId: requestIdOf });
  await app.register(requestStart, { acceptingRequests: accepting });
  app.get('/open', async () => ({ ok: true }));
  await app.register(
    async (plane) => {
      plane.addHook('onRequest', async (request) => {
        seen.push(request.url);
        if (!request.headers['x-pass']) throw errors.unauthorized('no pass');
      });
      plane.get('/thing', async () => ({ ok: true }));
    },
    { prefix: '/plane' },
  );
  await app.ready();
  return app;
}

describe('request-start plugin', () => {
  test("sets the request id on every response, a plane's refusals included", async () => {
    const built = await build();
    const open = await built.inject({ url: '/open' });
    expect(open.statusCode).toBe(200);
    expect(open.headers[REQUEST_ID_HEADER]).toMatch(/^[0-9a-f-]{36}$/);
    const refused = await built.inject({ url: '/plane/thing', headers: { [REQUEST_ID_HEADER]: 'mine-1' } });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers[REQUEST_ID_HEADER]).toBe('mine-1');
  });

  test("answers 503 while starting, before the plane's own hook", async () => {
    const seen: string[] = [];
    const built = await build(() => false, seen);
    const response = await built.inject({ url: '/plane/thing', headers: { 'x-pass': '1' } });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBeDefined();
    expect(seen).toEqual([]);
  });

  test("refuses a query with a NUL before the plane's own hook", async () => {
    const seen: string[] = [];
    const built = await build(undefined, seen);
    const response = await built.inject({ url: '/plane/thing?q=%00', headers: { 'x-pass': '1' } });
    expect(response.statusCode).toBe(400);
    expect(seen).toEqual([]);
    expect((await built.inject({ url: '/plane/thing', headers: { 'x-pass': '1' } })).statusCode).toBe(200);
  });
});
