import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { Clock } from '../../src/services/clock.js';
import { createTestStore, type TestStore } from './store.js';

export interface TestContext extends TestStore {
  app: FastifyInstance;
  config: Config;
  close(): Promise<void>;
}

/** A built (not listening) app over a fresh store; env entries override the config. */
export async function createTestApp(
  options: { env?: Record<string, string>; clock?: Clock } = {},
): Promise<TestContext> {
  const testStore = await createTestStore();
  const config = loadConfig(
    { dataDir: testStore.dataDir, databaseUrl: testStore.databaseUrl },
    {
      LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent',
      ...options.env,
    },
  );
  const app = await buildApp({
    config,
    store: testStore.store,
    clock: options.clock,
    logger: process.env.DEBUG_LOG ? {} : false,
  });
  await app.ready();
  return {
    ...testStore,
    app,
    config,
    async close() {
      await app.close();
      await testStore.cleanup();
    },
  };
}

export function basic(email: string, apiKey: string): string {
  return `Basic ${Buffer.from(`${email}:${apiKey}`).toString('base64')}`;
}

/** JSON body of a response (fails the test with the raw body when it is not JSON). */
export function json<T = any>(response: LightMyRequestResponse): T {
  try {
    return JSON.parse(response.body) as T;
  } catch {
    throw new Error(`Response is not JSON (${response.statusCode}): ${response.body.slice(0, 200)}`);
  }
}

export type Method = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';

/** Injects a request with an Authorization header and an optional JSON payload. */
export function injectAs(
  app: FastifyInstance,
  method: Method,
  url: string,
  authorization: string | undefined,
  payload?: unknown,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url,
    headers: authorization === undefined ? {} : { authorization },
    ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
  });
}

/** Every registered route as [method, path], read from Fastify's route tree. */
export function registeredRoutes(app: FastifyInstance): [string, string][] {
  const routes: [string, string][] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^(.*?)── (.+?) \(([A-Z, ]+)\)$/.exec(line);
    if (!match) continue;
    const depth = (match[1].length - 1) / 4;
    stack.length = depth;
    const path = stack.join('') + match[2];
    stack.push(match[2]);
    for (const method of match[3].split(', ')) routes.push([method, path]);
  }
  return routes;
}
