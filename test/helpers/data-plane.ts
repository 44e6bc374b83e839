import { Search } from '@upstash/search';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Clock } from '../../src/services/clock.js';
import type { Quotas } from '../../src/services/plans.js';
import type { Store } from '../../src/store/database.js';
import { createTestApp, type TestContext } from './app.js';
import { createAccount, createIndex, type TestAccount } from './factories.js';

/** The fields of an index record the data-plane tests use. */
export interface TestIndex {
  id: string;
  endpoint: string;
  token: string;
  read_only_token: string;
}

/** A test app that also listens on a free local port, for clients that speak real HTTP (the SDK). */
export interface ListeningContext extends TestContext {
  baseUrl: string;
}

export async function createListeningApp(
  options: { env?: Record<string, string>; clock?: Clock } = {},
): Promise<ListeningContext> {
  const ctx = await createTestApp(options);
  const baseUrl = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  return { ...ctx, baseUrl };
}

/** An account with one index, created through the management API. */
export async function createAccountWithIndex(
  app: FastifyInstance,
  body: Partial<{ name: string; region: string; type: string }> = {},
): Promise<{ account: TestAccount; index: TestIndex }> {
  const account = await createAccount(app);
  const index = await createIndex(app, account, body);
  return { account, index };
}

/** The official SDK pointed at an index's path-based URL, without telemetry or retries. */
export function sdkClient(baseUrl: string, endpoint: string, token: string): Search {
  return new Search({ url: `${baseUrl}/indexes/${endpoint}`, token, enableTelemetry: false, retry: false });
}

/**
 * One data-plane call through `app.inject`, as the SDK makes it: POST, JSON body, bearer token.
 * `route` is the path after the endpoint, e.g. `search/movies`.
 */
export function callIndex(
  app: FastifyInstance,
  endpoint: string,
  route: string,
  token: string | undefined,
  body: unknown = [],
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `/indexes/${endpoint}/${route}`,
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    payload: JSON.stringify(body),
  });
}

/** Sets quota fields on an index record directly in the store (what a plan change does). */
export async function setQuotas(store: Store, indexId: string, quotas: Partial<Quotas>): Promise<void> {
  await store.db.updateTable('search_indexes').set(quotas).where('id', '=', indexId).execute();
}

/** A clock tests move by hand. */
export interface ManualClock {
  now: Clock;
  set(ms: number): void;
  advance(ms: number): void;
}

export function manualClock(startMs: number): ManualClock {
  let current = startMs;
  return {
    now: () => current,
    set: (ms) => {
      current = ms;
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

/** `n` small documents `${prefix}0..n-1` with a text field and a numeric metadata field. */
export function makeDocs(n: number, prefix = 'doc-') {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}${i}`,
    content: { title: `Document number ${i}`, body: `text about topic ${i % 5}` },
    metadata: { position: i },
  }));
}
