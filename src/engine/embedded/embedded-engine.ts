import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../errors.js';
import type { IndexEngine, SearchEngine } from '../contract.js';
import { createBuiltinEnricher } from '../providers/builtin-enricher.js';
import { createBuiltinReranker } from '../providers/builtin-reranker.js';
import type { Embedder, EngineLogger, Enricher, Reranker } from '../providers/provider-types.js';
import { EmbeddedIndex } from './embedded-index.js';
import { HnswWorker } from './hnsw-worker-client.js';

export interface EmbeddedEngineOptions {
  /** Root directory; each index lives in `${dataDir}/indexes/${indexId}/`. */
  dataDir: string;
  embedder: Embedder;
  /** Default: builtin. */
  reranker?: Reranker;
  /** Default: builtin. */
  enricher?: Enricher;
  logger?: EngineLogger;
  /**
   * HNSW graph parameters. Defaults m 24, efConstruction 150, efSearch 1024: recall@10 ≈ 0.97 at
   * 100k documents of bench/data-plane.bench.js (builtin embedder; efSearch 512 gave 0.94, 768
   * 0.96), ~4 ms of graph search per query. Search time grows linearly with efSearch, and the ef a
   * given recall needs grows with the namespace (graph alone at efSearch 512: recall@10 0.99 at 10k
   * documents, 0.93 at 100k). Larger m or efConstruction index slower and make every search step
   * costlier; on that data they bought no more recall per millisecond than a larger efSearch.
   * efSearch is sized for topK up to 50; larger topK scale it (see `searchEf`).
   */
  hnsw?: { m?: number; efConstruction?: number; efSearch?: number };
  /**
   * Vectors per insertion batch handed to the HNSW worker thread (default 64; at most 4 batches
   * per namespace are in the worker's hands at a time).
   */
  indexingBatchSize?: number;
  /** How often changed HNSW graphs are written to disk (default 30 s). */
  persistIntervalMs?: number;
}

const INDEX_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
const silentLogger: EngineLogger = { info() {}, warn() {}, error() {} };

/**
 * The embedded engine: SQLite (documents, FTS5) + hnswlib (vectors) files under `dataDir`, no
 * external services besides optional HTTP model endpoints. One worker thread (hnsw-worker.js)
 * holds every open HNSW graph, so vector indexing runs beside request handling. Indexes open
 * lazily and stay open until dropped or the engine closes.
 */
export function createEmbeddedEngine(options: EmbeddedEngineOptions): SearchEngine {
  const logger = options.logger ?? silentLogger;
  const settings = {
    embedder: options.embedder,
    reranker: options.reranker ?? createBuiltinReranker(),
    enricher: options.enricher ?? createBuiltinEnricher(),
    logger,
    hnswWorker: new HnswWorker(logger),
    hnsw: {
      m: options.hnsw?.m ?? 24,
      efConstruction: options.hnsw?.efConstruction ?? 150,
      efSearch: options.hnsw?.efSearch ?? 1024,
    },
    indexingBatchSize: options.indexingBatchSize ?? 64,
    persistIntervalMs: options.persistIntervalMs ?? 30_000,
  };
  const indexes = new Map<string, Promise<EmbeddedIndex>>();
  const folder = (indexId: string) => {
    // The id becomes a directory name: no separators, no "..", nothing hidden.
    if (!INDEX_ID.test(indexId) || indexId.includes('..')) {
      throw new AppError('invalid_request', `Invalid index id '${String(indexId).slice(0, 64)}'`);
    }
    return join(options.dataDir, 'indexes', indexId);
  };

  return {
    open(indexId: string): Promise<IndexEngine> {
      let opening = indexes.get(indexId);
      if (!opening) {
        opening = (async () => {
          const dir = folder(indexId);
          mkdirSync(dir, { recursive: true });
          return new EmbeddedIndex(dir, settings);
        })();
        indexes.set(indexId, opening);
        opening.catch(() => indexes.delete(indexId));
      }
      return opening;
    },

    async drop(indexId: string): Promise<void> {
      const dir = folder(indexId);
      const opening = indexes.get(indexId);
      indexes.delete(indexId);
      const index = await opening?.catch(() => undefined);
      await index?.close();
      await rm(dir, { recursive: true, force: true });
    },

    async close(): Promise<void> {
      const open = [...indexes.values()];
      indexes.clear();
      await Promise.all(open.map(async (opening) => (await opening.catch(() => undefined))?.close()));
      if (indexes.size === 0) await settings.hnswWorker.terminate();
    },
  };
}
