import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { AppError } from '../errors.js';
import type { IndexEngine, SearchEngine, SearchRequest } from './contract.js';
import { createEmbeddedEngine, type EmbeddedEngineOptions } from './embedded/embedded-engine.js';
import { normalize } from './embedded/vector-math.js';
import { createBuiltinEmbedder } from './providers/builtin-embedder.js';
import type { Embedder } from './providers/provider-types.js';

/* Shared helpers for the engine's Vitest suites (not used by production code). */

/** A fresh directory under the OS temp dir, and its removal. */
export function tempDir(): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'searchplane-engine-'));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * An embedded engine with the builtin embedder over `dataDir`, with two vector workers and two text
 * shards whatever the machine (so each namespace has two graph files, `vectors-<ns>.0-of-2.hnsw`
 * and `.1-of-2`, and two full-text snapshots, `fulltext-<ns>.0-of-2.snap` and `.1-of-2`).
 */
export function testEngine(dataDir: string, options: Partial<EmbeddedEngineOptions> = {}): SearchEngine {
  return createEmbeddedEngine({
    dataDir,
    embedder: createBuiltinEmbedder(),
    vectorWorkers: 2,
    textShards: 2,
    ...options,
  });
}

/** A search request with the engine's neutral defaults. */
export function searchRequest(query: string, overrides: Partial<SearchRequest> = {}): SearchRequest {
  return {
    query,
    topK: 10,
    includeData: true,
    includeMetadata: true,
    semanticWeight: 0.5,
    reranking: false,
    inputEnrichment: false,
    keepOriginalQuery: false,
    ...overrides,
  };
}

/** Resolves once the background indexer has caught up. */
export async function indexed(index: IndexEngine, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await index.info()).pendingVectorCount > 0) {
    if (Date.now() > deadline) throw new Error('indexing did not finish');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const NO_LIMIT = { maxVectorCount: -1 };

/** Keeps this thread busy for `ms` without yielding (CPU work, as a search section or an ingest). */
export function busyFor(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/** The AppError a promise rejects with (fails the test when it resolves or rejects otherwise). */
export async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

/**
 * Deterministic pseudo-random unit vectors (mulberry32): "d<i>" is document i, "q<i>" query i.
 * Unlike the builtin embedder, nearby numbers share nothing, which makes graph recall testable.
 */
export function syntheticVector(text: string, dimensions: number): Float32Array {
  let seed = Number(text.slice(1)) * 2 + (text[0] === 'q' ? 1 : 0) + 1;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return normalize(Float32Array.from({ length: dimensions }, () => random() * 2 - 1));
}

/** An embedder over {@link syntheticVector}. */
export function syntheticEmbedder(name: string, dimensions: number): Embedder {
  return { name, dimensions, embed: async (texts) => texts.map((text) => syntheticVector(text, dimensions)) };
}
