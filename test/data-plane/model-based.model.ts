import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { JsonObject } from '../../src/engine/contract.js';
import { openStore, type Store } from '../../src/store/database.js';
import { createTestApp, json, type TestContext } from '../helpers/app.js';
import { callIndex, type TestIndex } from '../helpers/data-plane.js';
import { createAccount, type TestAccount } from '../helpers/factories.js';

/**
 * The in-memory model of one index's data plane, the system under test it is compared with, and
 * the full comparison of the two (`verifyAll`), for test/data-plane/model-based.test.ts.
 */

/** A small id space (ASCII, so id order is code-unit order): ids that prefix each other, and `%`, `_`, `-`. */
export const IDS = ['Z', 'a', 'a1', 'a10', 'a2', 'ab', 'b', 'b%', 'bz', 'c-1', 'c_1', 'cx1'] as const;
/** Prefixes for delete/fetch/range by prefix: `%` and `_` must be literal characters, not wildcards. */
export const PREFIXES = ['a', 'a1', 'b', 'b%', 'c', 'c_', 'c-', 'Z', 'q'] as const;
/** The default namespace, a plain one and one that needs percent-encoding. */
export const NAMESPACES = ['', 'books', 'x/y z'] as const;
/** Words with distinct stems, none a stop word. */
export const VOCAB = ['apple', 'river', 'stone', 'cloud', 'tiger', 'ocean', 'piano', 'lemon'] as const;
export const GENRES = ['jazz', 'folk', 'rock'] as const;
export const AUTHORS = ['ann', 'bob'] as const;

export interface Metadata {
  rank: number;
  color?: 'red' | 'blue';
  flag?: boolean;
}

/** One version of a document as the model holds it. */
export interface Version {
  content: JsonObject;
  metadata?: Metadata;
  /** A word no other version (of any document) ever has. */
  word: string;
  /** Its content's words (lowercase tokens). */
  words: Set<string>;
}

/** A generated document; its content gets a word unique to the version when it is sent. */
export interface DocSpec {
  id: string;
  title: string[];
  body: string[];
  genre: string;
  author?: string;
  /** `null`: sent as `"metadata": null` ("not set"). */
  metadata?: Metadata | null;
}

/** A new version of `spec` with the model's next unique word, and the document to send. */
export function newVersion(model: Model, spec: DocSpec) {
  const word = `u${model.nextVersion++}q`;
  const content: JsonObject = {
    title: spec.title.join(' '),
    body: [...spec.body, word].join(' '),
    genre: spec.genre,
    ...(spec.author ? { author: { name: spec.author } } : {}),
  };
  const version: Version = {
    content,
    word,
    words: new Set([...spec.title, ...spec.body, word, spec.genre, ...(spec.author ? [spec.author] : [])]),
    ...(spec.metadata ? { metadata: spec.metadata } : {}),
  };
  const sent = { id: spec.id, content, ...(spec.metadata !== undefined ? { metadata: spec.metadata } : {}) };
  return { version, sent };
}

/** The model after an acknowledged upsert of one version (replaces by id; creates the namespace). */
export function applyUpsert(model: Model, namespace: string, id: string, version: Version): void {
  if (!model.namespaces.has(namespace)) model.namespaces.set(namespace, new Map());
  removeWhere(model, namespace, (other) => other === id);
  model.namespaces.get(namespace)!.set(id, version);
}

/** Filters with their meaning as a predicate (README: type-checked; negations match a missing field). */
export const FILTERS: { text: string; matches: (v: Version) => boolean }[] = [
  { text: '@metadata.rank >= 3', matches: (v) => (v.metadata?.rank ?? -1) >= 3 },
  { text: "@metadata.color = 'red'", matches: (v) => v.metadata?.color === 'red' },
  { text: "@metadata.color != 'red'", matches: (v) => v.metadata?.color !== 'red' },
  { text: "@metadata.color NOT IN ('blue')", matches: (v) => v.metadata?.color !== 'blue' },
  { text: "genre = 'jazz'", matches: (v) => v.content.genre === 'jazz' },
  { text: "genre IN ('folk', 'rock')", matches: (v) => v.content.genre === 'folk' || v.content.genre === 'rock' },
  {
    text: "@metadata.rank < 2 OR author.name = 'ann'",
    matches: (v) => (v.metadata !== undefined && v.metadata.rank < 2) || authorOf(v) === 'ann',
  },
  {
    text: "genre = 'rock' AND @metadata.flag = true",
    matches: (v) => v.content.genre === 'rock' && v.metadata?.flag === true,
  },
  { text: "author.name GLOB 'b*'", matches: (v) => authorOf(v)?.startsWith('b') === true },
];

function authorOf(v: Version): string | undefined {
  const author = v.content.author as { name?: string } | undefined;
  return author?.name;
}

export interface Model {
  /**
   * Existing namespaces: created by an upsert, kept by reset and by deleting their last document,
   * removed by delete-namespace. The default namespace (`""`) exists from the start and cannot be
   * deleted: list-namespaces and info always list it.
   */
  namespaces: Map<string, Map<string, Version>>;
  /** Words of versions replaced or removed since: no search may find them again. */
  retired: { namespace: string; id: string; word: string }[];
  nextVersion: number;
}

export const emptyModel = (): Model => ({ namespaces: new Map([['', new Map()]]), retired: [], nextVersion: 0 });

export function docsOf(model: Model, namespace: string): Map<string, Version> {
  return model.namespaces.get(namespace) ?? new Map();
}

/** Removes the namespace's documents matching `which`, retiring their words; returns how many. */
export function removeWhere(model: Model, namespace: string, which: (id: string, v: Version) => boolean): number {
  const docs = docsOf(model, namespace);
  let removed = 0;
  for (const [id, version] of [...docs]) {
    if (!which(id, version)) continue;
    docs.delete(id);
    model.retired.push({ namespace, id, word: version.word });
    removed++;
  }
  return removed;
}

/** Every live document, in a stable order (namespace order, then id order). */
export function liveDocs(model: Model): { namespace: string; id: string; version: Version }[] {
  return NAMESPACES.flatMap((namespace) =>
    [...docsOf(model, namespace)]
      .sort(([a], [b]) => compareIds(a, b))
      .map(([id, version]) => ({ namespace, id, version })),
  );
}

export const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A document as a read returns it with the given flags. */
export function expected(id: string, version: Version, flags: { includeData: boolean; includeMetadata: boolean }) {
  return {
    id,
    ...(flags.includeData ? { content: version.content } : {}),
    ...(flags.includeMetadata && version.metadata ? { metadata: version.metadata } : {}),
  };
}

/** One app over the store (PostgreSQL: a node, with its own data dir and connection pool). */
export interface Node {
  app: FastifyInstance;
  config: Config;
  store: Store;
}

/** What the runs share: the nodes (apps are replaced by a reopen), the store, the account owning the indexes. */
export interface World {
  ctx: TestContext;
  env: Record<string, string>;
  account: TestAccount;
  /** One node on SQLite; two on PostgreSQL, each answering for the same indexes. */
  nodes: Node[];
  /** The node requests go to. */
  current: number;
  /** Data dirs and stores of the nodes made here, removed and closed at the end. */
  extraDataDirs: string[];
  extraStores: Store[];
}

export interface Real {
  world: World;
  index: TestIndex;
}

export const appOf = (world: World): FastifyInstance => world.nodes[world.current].app;

/** A world over a fresh store; on PostgreSQL with a second node (its own data dir and pool). */
export async function createWorld(env: Record<string, string>): Promise<World> {
  const ctx = await createTestApp({ env });
  const world: World = {
    ctx,
    env,
    account: await createAccount(ctx.app),
    nodes: [{ app: ctx.app, config: ctx.config, store: ctx.store }],
    current: 0,
    extraDataDirs: [],
    extraStores: [],
  };
  if (ctx.databaseUrl) {
    const config = newNodeConfig(world);
    const store = openStore({ dataDir: config.dataDir, databaseUrl: ctx.databaseUrl });
    world.extraStores.push(store);
    const app = await buildApp({ config, store, logger: false });
    await app.ready();
    world.nodes.push({ app, config, store });
  }
  return world;
}

export async function closeWorld(world: World): Promise<void> {
  for (const node of world.nodes) await node.app.close();
  for (const store of world.extraStores) await store.close();
  await world.ctx.cleanup();
  for (const dir of world.extraDataDirs) rmSync(dir, { recursive: true, force: true });
}

function newNodeConfig(world: World): Config {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'searchplane-model-node-'));
  world.extraDataDirs.push(dataDir);
  return loadConfig({ dataDir, databaseUrl: world.ctx.databaseUrl }, { LOG_LEVEL: 'silent', ...world.env });
}

/**
 * Closes the current node's app and builds a new one on the same store and data dir, or
 * (`freshDataDir`, PostgreSQL only) on an empty data dir, as a replacement node would start.
 */
export async function reopen(world: World, freshDataDir: boolean): Promise<void> {
  const node = world.nodes[world.current];
  await within(node.app.close(), `closing node ${world.current}`);
  if (freshDataDir) node.config = newNodeConfig(world);
  node.app = await buildApp({ config: node.config, store: node.store, logger: false });
  await within(node.app.ready(), `starting node ${world.current}`);
}

/** A data-plane call for `namespace` (null: an index-wide route), as the SDK sends it. */
export function call(real: Real, route: string, namespace: string | null, body?: unknown, node = real.world.current) {
  const url = namespace === null || namespace === '' ? route : `${route}/${encodeURIComponent(namespace)}`;
  const request = callIndex(real.world.nodes[node].app, real.index.endpoint, url, real.index.token, body);
  return within(request, `POST ${url} ${JSON.stringify(body ?? null)} (node ${node})`);
}

/** A request or restart that hangs fails the run (and is shrunk) instead of timing the test out. */
const DEADLINE_MS = 30_000;

export async function within<T>(promise: PromiseLike<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${DEADLINE_MS} ms`)), DEADLINE_MS);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The `result` of a 200 answer (anything else fails, naming the request). */
export function resultOf(response: LightMyRequestResponse, what: string): any {
  expect(response.statusCode, `${what} → ${response.statusCode} ${response.body.slice(0, 300)}`).toBe(200);
  return json(response).result;
}

const ALL = { includeData: true, includeMetadata: true };

/**
 * Search, by default with pure full text (`semanticWeight` 0) and no enrichment (the SDK leaves it
 * on); checks the shape: scores in 0..1, best first, 1 for the best of a pure full-text search.
 */
export async function search(
  real: Real,
  namespace: string,
  query: string,
  options: {
    topK?: number;
    filter?: string;
    enrichment?: boolean;
    node?: number;
    semanticWeight?: number;
    reranking?: boolean;
  } = {},
) {
  const semanticWeight = options.semanticWeight ?? 0;
  const body = {
    query,
    topK: options.topK ?? 5,
    semanticWeight,
    inputEnrichment: options.enrichment ?? false,
    ...(options.reranking ? { reranking: true } : {}),
    ...ALL,
    ...(options.filter ? { filter: options.filter } : {}),
  };
  const what = `search ${JSON.stringify(namespace)} ${JSON.stringify(body)}`;
  const hits = resultOf(await call(real, 'search', namespace, body, options.node), what) as {
    id: string;
    score: number;
    content?: unknown;
    metadata?: unknown;
  }[];
  let previous = Number.POSITIVE_INFINITY;
  for (const hit of hits) {
    expect(hit.score, `${what}: score of ${hit.id}`).toBeGreaterThanOrEqual(0);
    expect(hit.score, `${what}: score of ${hit.id}`).toBeLessThanOrEqual(1);
    expect(hit.score, `${what}: best first`).toBeLessThanOrEqual(previous);
    previous = hit.score;
  }
  // Full text is BM25 relative to the best match (README), so with semanticWeight 0 the best scores 1.
  if (hits.length > 0 && !options.filter && semanticWeight === 0 && !options.reranking)
    expect(hits[0].score, `${what}: score of the best match`).toBe(1);
  return { hits, what };
}

/** Every hit is a live document of the namespace, with its current content and metadata. */
export function expectCurrentHits(
  model: Model,
  namespace: string,
  hits: { id: string; score: number }[],
  what: string,
): void {
  for (const hit of hits) {
    const version = docsOf(model, namespace).get(hit.id);
    expect(version, `${what}: ${hit.id} is not a live document of the model`).toBeDefined();
    expect(hit, `${what}: stale version of ${hit.id}`).toEqual({
      ...expected(hit.id, version!, ALL),
      score: expect.any(Number),
    });
  }
}

/** All of `range` for a namespace, page by page; checks page sizes and termination. */
export async function rangeAll(
  real: Real,
  namespace: string,
  options: { limit: number; prefix?: string; includeData: boolean; includeMetadata: boolean },
) {
  const documents: { id: string }[] = [];
  let cursor: string | number = options.limit % 2 === 0 ? '' : 0; // both start a scan (README)
  for (let page = 0; ; page++) {
    const body = { ...options, cursor };
    const what = `range ${JSON.stringify(namespace)} ${JSON.stringify(body)}`;
    const result = resultOf(await call(real, 'range', namespace, body), what);
    expect(result.vectors.length, `${what}: page size`).toBeLessThanOrEqual(options.limit);
    expect(page, `${what}: too many pages`).toBeLessThanOrEqual(IDS.length + 1);
    documents.push(...result.vectors);
    expect(typeof result.nextCursor, what).toBe('string');
    if (result.nextCursor === '') return documents;
    cursor = result.nextCursor;
  }
}

/** What range (and a prefix fetch) must return: the namespace's documents in id order. */
export function expectedRange(model: Model, namespace: string, prefix: string, flags: typeof ALL) {
  return [...docsOf(model, namespace)]
    .filter(([id]) => id.startsWith(prefix))
    .sort(([a], [b]) => compareIds(a, b))
    .map(([id, version]) => expected(id, version, flags));
}

/** Info's counts (pending counts are only checked for shape: the README lets them lag). */
export async function verifyInfo(model: Model, real: Real): Promise<void> {
  const info = resultOf(await call(real, 'info', null), 'info');
  const counts = Object.fromEntries([...model.namespaces].map(([name, docs]) => [name, docs.size]));
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  expect(
    Object.fromEntries(
      Object.entries(info.namespaces as Record<string, { vectorCount: number }>).map(([k, v]) => [k, v.vectorCount]),
    ),
    'info: documents per namespace',
  ).toEqual(counts);
  expect(info.vectorCount, 'info: documents').toBe(total);
  let pending = 0;
  for (const [name, ns] of Object.entries(info.namespaces as Record<string, { pendingVectorCount: number }>)) {
    expect(Number.isInteger(ns.pendingVectorCount) && ns.pendingVectorCount >= 0, `info: pending of ${name}`).toBe(
      true,
    );
    pending += ns.pendingVectorCount;
  }
  expect(info.pendingVectorCount, 'info: pending is the sum over namespaces').toBe(pending);
  expect(info.indexSize, 'info: size').toBeGreaterThanOrEqual(0);
}

/** Everything the model knows, read back: namespaces, counts, every document, every word. */
export async function verifyAll(model: Model, real: Real): Promise<void> {
  const names = resultOf(await call(real, 'list-namespaces', null), 'list-namespaces') as string[];
  expect([...names].sort(), 'list-namespaces').toEqual([...model.namespaces.keys()].sort());
  await verifyInfo(model, real);
  for (const namespace of NAMESPACES) {
    const body = { ids: [...IDS], ...ALL };
    const fetched = resultOf(await call(real, 'fetch', namespace, body), `fetch all of ${JSON.stringify(namespace)}`);
    const docs = docsOf(model, namespace);
    expect(fetched, `fetch all of ${JSON.stringify(namespace)}`).toEqual(
      IDS.map((id) => (docs.has(id) ? expected(id, docs.get(id)!, ALL) : null)),
    );
    const ranged = await rangeAll(real, namespace, { limit: 5, ...ALL });
    expect(ranged, `range all of ${JSON.stringify(namespace)}`).toEqual(expectedRange(model, namespace, '', ALL));
  }
  for (const { namespace, id, version } of liveDocs(model)) {
    const { hits, what } = await search(real, namespace, version.word);
    expect(hits, what).toEqual([{ ...expected(id, version, ALL), score: expect.any(Number) }]);
  }
  for (const { namespace, word } of model.retired) {
    const { hits, what } = await search(real, namespace, word);
    expect(hits, `${what}: a replaced or removed version was found`).toEqual([]);
  }
}
