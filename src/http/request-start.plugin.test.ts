import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { afterEach, describe, expect, test } from 'vitest';
import { errors } from '../errors.js';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js';
import requestStart, { REQUEST_START_PLUGIN, setPlaneOnRequest } from './request-start.plugin.js';

/** A plane whose first check refuses requests without `x-pass`, and records the ones it saw. */
function guardedPlane(seen: string[]) {
  return fp(
    async (app: FastifyInstance) => {
      setPlaneOnRequest(app, (request, _reply, done) => {
        seen.push(request.url);
        done(request.headers['x-pass'] ? undefined : errors.unauthorized('no pass'));
      });
      app.get('/guarded/thing', async () => ({ ok: true }));
      // Routes live in plugins nested in the plane, as the management API's do.
      await app.register(async (nested) => {
        nested.get('/guarded/nested', async () => ({ ok: true }));
      });
    },
    { name: 'guarded-plane', dependencies: [REQUEST_START_PLUGIN] },
  );
}

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function build(accepting = () => true, seen: string[] = []): Promise<FastifyInstance> {
  app = Fastify({ requestIdHeader: false, genReqId: requestIdOf });
  await app.register(requestStart, { acceptingRequests: accepting });
  app.get('/open', async () => ({ ok: true }));
  // A sibling context under a prefix of its own: the plane's check is not its business.
  await app.register(
    async (other) => {
      other.get('/thing', async () => ({ ok: true }));
    },
    { prefix: '/other' },
  );
  await app.register(
    async (plane) => {
      await plane.register(guardedPlane(seen));
    },
    { prefix: '/plane' },
  );
  await app.ready();
  return app;
}

describe('request-start plugin', () => {
  test("runs a plane's first check on that plane's routes only, after setting the request id", async () => {
    const seen: string[] = [];
    const built = await build(undefined, seen);

    const open = await built.inject({ url: '/open' });
    expect(open.statusCode).toBe(200);
    expect(open.headers[REQUEST_ID_HEADER]).toMatch(/^[0-9a-f-]{36}$/);

    const refused = await built.inject({ url: '/plane/guarded/thing' });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers[REQUEST_ID_HEADER]).toMatch(/^[0-9a-f-]{36}$/);
    const passed = await built.inject({ url: '/plane/guarded/thing', headers: { 'x-pass': '1' } });
    expect(passed.statusCode).toBe(200);

    expect(seen).toEqual(['/plane/guarded/thing', '/plane/guarded/thing']);
  });

  test('covers routes in plugins nested in the plane and the HEAD routes of its GETs, and no sibling', async () => {
    const seen: string[] = [];
    const built = await build(undefined, seen);
    expect((await built.inject({ url: '/plane/guarded/nested' })).statusCode).toBe(401);
    expect((await built.inject({ method: 'HEAD', url: '/plane/guarded/thing' })).statusCode).toBe(401);
    expect((await built.inject({ url: '/other/thing' })).statusCode).toBe(200);
    expect(seen).toEqual(['/plane/guarded/nested', '/plane/guarded/thing']);
  });

  test("a plugin nested in a plane cannot replace the plane's check", async () => {
    app = Fastify();
    await app.register(requestStart);
    app.register(
      async (plane) => {
        await plane.register(guardedPlane([]));
        await plane.register(async (nested) => {
          setPlaneOnRequest(nested, (_request, _reply, done) => done());
          nested.get('/unguarded', async () => ({ ok: true }));
        });
      },
      { prefix: '/plane' },
    );
    await expect(app.ready()).rejects.toThrow(/already have a plane check/);
  });

  test("answers 503 while starting, before the plane's check", async () => {
    const seen: string[] = [];
    const built = await build(() => false, seen);
    const response = await built.inject({ url: '/plane/guarded/thing', headers: { 'x-pass': '1' } });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBeDefined();
    expect(seen).toEqual([]);
  });

  test("refuses a path with a NUL before the plane's check", async () => {
    const seen: string[] = [];
    const built = await build(undefined, seen);
    const response = await built.inject({ url: '/plane/guarded/thing?q=%00', headers: { 'x-pass': '1' } });
    expect(response.statusCode).toBe(400);
    expect(seen).toEqual([]);
  });

  test('an app where nothing would run the check refuses to start', async () => {
    app = Fastify();
    await expect(app.register(guardedPlane([])).ready()).rejects.toMatchObject({
      code: 'FST_ERR_PLUGIN_DEPENDENCY_NOT_REGISTERED',
    });
  });
});
