import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createBuiltinEmbedder } from './builtin-embedder.js';
import { createEmbeddedEngine, type EmbeddedEngineOptions } from './embedded-engine.js';
import type { IndexEngine, SearchEngine, SearchRequest } from './types.js';

/* Shared helpers for the engine's Vitest suites (not used by production code). */

/** A fresh directory under the OS temp dir, and its removal. */
export function tempDir(): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'searchplane-engine-'));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** An embedded engine with the builtin embedder over `dataDir`. */
export function testEngine(dataDir: string, options: Partial<EmbeddedEngineOptions> = {}): SearchEngine {
  return createEmbeddedEngine({ dataDir, embedder: createBuiltinEmbedder(), ...options });
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
