import { Writable } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createApiKey } from '../helpers/api-keys.js';
import { basic } from '../helpers/app.js';
import { setQuotas } from '../helpers/data-plane.js';
import { createAccount, createIndex, type TestAccount } from '../helpers/factories.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import type { FuzzRequest, FuzzWorld } from './request-arbitraries.js';

/** The app under fuzzing, with everything its logs printed, and what must survive the run. */
export interface FuzzTarget {
  app: FastifyInstance;
  world: FuzzWorld;
  logs: string[];
  /** Every secret the run knows: none may appear in the logs. */
  secrets: string[];
  canaryAccount: TestAccount;
  canaryIndex: { id: string; endpoint: string; token: string; read_only_token: string };
  close(): Promise<void>;
}

export const CANARY_DOCUMENT = {
  id: 'canary-1',
  content: { title: 'The canary sings', body: 'nothing may change this document' },
  metadata: { n: 1, tag: 'canary' },
};

/**
 * A fresh store and app logging at info (every request) into memory, with two accounts: the
 * canary's (an index with one document, whose secrets the fuzzer never gets) and the fuzzer's.
 */
export async function createFuzzTarget(): Promise<FuzzTarget> {
  const store: TestStore = await createTestStore();
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  const config = loadConfig(
    { dataDir: store.dataDir, databaseUrl: store.databaseUrl },
    // Wrong keys are part of the fuzz; throttling them would only turn later cases into 429s.
    { LOG_LEVEL: 'info', SEARCHPLANE_AUTH_FAILURE_LIMIT: '1000000' },
  );
  const app = await buildApp({ config, store: store.store, logger: { stream } });
  await app.ready();

  const canaryAccount = await createAccount(app);
  const canaryIndex = await createIndex(app, canaryAccount, { name: 'canary' });
  for (const namespace of ['', 'canary']) {
    const upsert = await dataCall(app, canaryIndex.endpoint, `upsert-data/${namespace}`, canaryIndex.token, [
      CANARY_DOCUMENT,
    ]);
    if (upsert.statusCode !== 200) throw new Error(`canary upsert failed: ${upsert.body}`);
  }
  const fuzzer = await createAccount(app);
  const index = await createIndex(app, fuzzer, { name: 'fuzzed' });
  // No per-request quotas: extreme topK, limits and batch sizes reach the engine's own checks.
  await setQuotas(store.store, index.id, { max_reads_per_request: -1, max_writes_per_request: -1 });
  const messaging = await app.inject({
    method: 'GET',
    url: '/v2/messaging/users',
    headers: { authorization: fuzzer.auth },
  });
  const limited = await createApiKey(app, fuzzer, {
    actions: ['indexes.*', 'keys.read', 'stats.read'],
    indexes: [index.id],
  });
  const deletable = await createApiKey(app, fuzzer, { actions: ['indexes.read'] });
  const world: FuzzWorld = {
    auth: fuzzer.auth,
    email: fuzzer.email,
    index: { id: index.id, endpoint: index.endpoint, token: index.token, readOnlyToken: index.read_only_token },
    canary: { id: canaryIndex.id, endpoint: canaryIndex.endpoint },
    messagingIds: (JSON.parse(messaging.body) as { id: string }[]).map((instance) => instance.id),
    limitedAuth: limited.auth,
    apiKeyId: deletable.id,
  };
  return {
    app,
    world,
    logs,
    secrets: [
      canaryAccount.apiKey,
      canaryIndex.token,
      canaryIndex.read_only_token,
      fuzzer.apiKey,
      index.token,
      index.read_only_token,
      limited.key,
      deletable.key,
    ],
    canaryAccount,
    canaryIndex,
    async close() {
      await app.close();
      await store.cleanup();
    },
  };
}

/** Documents the fuzzed index is refilled with (default namespace and `ns`), matching the fuzzed filters' fields. */
export function fillerDocuments(round: number) {
  return Array.from({ length: 20 }, (_, i) => ({
    id: i < 3 ? `d${i + 1}` : `filler-${round}-${i}`,
    content: { title: `a small title number ${i}`, body: 'words to find', n: i, tags: ['t1', `t${i}`], a: { b: i } },
    metadata: { n: i, tag: `t${i % 4}` },
  }));
}

/** Puts documents back into the fuzzed index's namespaces (fuzzed deletes and resets empty them). */
export async function refill(target: FuzzTarget, round: number): Promise<void> {
  const { endpoint, token } = target.world.index;
  for (const namespace of ['', 'ns']) {
    const response = await dataCall(target.app, endpoint, `upsert-data/${namespace}`, token, fillerDocuments(round));
    if (response.statusCode !== 200) throw new Error(`refill failed: ${response.statusCode} ${response.body}`);
  }
}

export function dataCall(
  app: FastifyInstance,
  endpoint: string,
  route: string,
  token: string,
  body: unknown = [],
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `/indexes/${endpoint}/${route}`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}

/** What is wrong with the response to a fuzzed request (empty when it is fine). */
export function responseProblems(request: FuzzRequest, response: LightMyRequestResponse): string[] {
  const problems: string[] = [];
  const status = response.statusCode;
  if (status >= 500) problems.push(`status ${status}`);
  if (request.method === 'HEAD' || status < 400) return problems;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(response.body);
  } catch {
    return [...problems, `error body is not JSON: ${response.body.slice(0, 120)}`];
  }
  if (typeof body.error !== 'string') problems.push('error body without an "error" message');
  if (typeof body.code !== 'string' || !/^[a-z][a-z_]*$/.test(body.code)) problems.push('error body without a code');
  // As the server sees the path: `..` and `%2e%2e` segments are resolved by the URL parser first.
  const dataPlane = new URL(request.url, 'http://localhost').pathname.startsWith('/indexes/');
  if (dataPlane && body.status !== status) problems.push(`data-plane "status" ${body.status} is not ${status}`);
  if (status === 401 && !response.headers['www-authenticate']) problems.push('401 without WWW-Authenticate');
  if (status === 429 && !response.headers['retry-after']) problems.push('429 without Retry-After');
  if (/\n\s+at |node_modules|\/src\/|\.ts:\d+/.test(response.body)) problems.push('internals in the error body');
  return problems;
}

/** A short, printable description of a request for failure reports. */
export function describeRequest(request: FuzzRequest): string {
  const cut = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…(${text.length} chars)` : text);
  const auth = request.headers.authorization ? ` auth=${cut(request.headers.authorization).slice(0, 24)}…` : '';
  const type = request.headers['content-type'] ? ` type=${request.headers['content-type']}` : '';
  return `${request.method} ${cut(request.url)}${auth}${type} body=${JSON.stringify(cut(request.payload ?? ''))}`;
}

export { basic };
