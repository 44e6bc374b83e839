import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import Database from 'better-sqlite3';
import { errors } from '../../errors.js';
import type { EngineStats, IndexEngine, IndexSummary, SearchEngine } from '../contract.js';
import { CpuTurns } from '../cpu-turns.js';
import { createBuiltinEnricher } from '../providers/builtin-enricher.js';
import { createBuiltinReranker } from '../providers/builtin-reranker.js';
import type { Embedder, EngineLogger, Enricher, Reranker } from '../providers/provider-types.js';
import { sqliteOutOfDescriptors } from './descriptor-probe.js';
import { UNEMBEDDED_META, WITHOUT_VECTOR } from './document-schema.js';
import { EmbeddedIndex, type IndexSettings } from './embedded-index.js';
import { HnswWorker } from './hnsw-worker-client.js';
import { databaseFile, folderSize, indexFolder, localIndexIds } from './index-files.js';
import { checkNativeBuild } from './native-build-check.js';
import { OpenIndexes } from './open-indexes.js';
import { defaultTextShards, TextShards } from './text-shards/text-shards.js';

export interface EmbeddedEngineOptions {
  /** Root directory; each index lives in `${dataDir}/indexes/${indexId}/`. */
  dataDir: string;
  embedder: Embedder;
  /** Default: builtin. */
  reranker?: Reranker;
  /** Default: builtin. */
  enricher?: Enricher;
  logger?: EngineLogger;
  /** Indexes kept open while idle (default 64); more close least recently used first. */
  maxOpenIndexes?: number;
  /** Hears how long each embedder call took (metrics). */
  onEmbed?: (seconds: number, texts: number) => void;
  /**
   * HNSW graph parameters. Defaults m 16, efConstruction 64, efSearch 512: a search's extra
   * candidates make up for the sparser candidate lists of a cheaper build, which reaches the recall
   * target with the least graph building (the alternatives measured are in docs/performance.md).
   * Search time grows linearly with efSearch, and the ef a given recall needs grows with the
   * namespace. efSearch is sized for topK up to 50; larger topK scale it (see `searchEf`).
   */
  hnsw?: { m?: number; efConstruction?: number; efSearch?: number };
  /**
   * Vectors per insertion batch handed to the HNSW worker thread (default 64; at most 4 batches
   * per namespace are in the worker's hands at a time).
   */
  indexingBatchSize?: number;
  /** How often changed HNSW graphs are written to disk (default 30 s). */
  persistIntervalMs?: number;
  /**
   * Worker threads holding the HNSW graphs (default: the cores, at most 4). Each namespace's vectors
   * are split into one graph per worker, so indexing uses every core and searches ask all graphs at
   * once. Changing it rebuilds the graphs from SQLite (their files are per segmentation).
   */
  vectorWorkers?: number;
  /**
   * Text shard threads (default: the cores, at most 4). Each namespace's full-text index is split
   * into one shard per thread, so indexing and every search use all of them. Changing it rebuilds
   * the full-text indexes from SQLite at their next use (their snapshot files are per shard count).
   */
  textShards?: number;
  /** Text shard threads made by the caller (tests reach them to make one fail); the engine stops them on close. */
  shardPool?: TextShards;
  /**
   * Documents of an index whose vectors the text shards may still be making when a write is
   * acknowledged (default 100,000): past that, a write waits for its own vectors, as with 0 always.
   * Only with the builtin (lexical) embedder; writes that need a remote embedder are always
   * embedded first.
   */
  indexingBacklog?: number;
}

const silentLogger: EngineLogger = { info() {}, warn() {}, error() {} };
export const DEFAULT_MAX_OPEN_INDEXES = 64;
export const DEFAULT_INDEXING_BACKLOG = 100_000;

function defaultVectorWorkers(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

/** The embedded engine plus what the PostgreSQL engine needs of it to keep replicas. */
export interface EmbeddedEngine extends SearchEngine {
  /** Runs `work` on the local index (opening it if needed); it stays open meanwhile. */
  use<R>(indexId: string, work: (index: EmbeddedIndex) => Promise<R>): Promise<R>;
  /** Whether the index has local data on this node. */
  hasLocalData(indexId: string): boolean;
}

/** Whether the native vector graph's build was checked against this CPU (once per process). */
let nativeBuildChecked = false;

/**
 * The embedded engine: SQLite (documents) + full-text snapshot + HNSW graph (vectors) files under
 * `dataDir`, no external services besides optional HTTP model endpoints. Text shard threads
 * (text-shards/) hold the full-text indexes and make the builtin embedder's vectors; vector worker
 * threads (hnsw-worker.js) hold the HNSW graphs: indexing and searches run on every core, beside
 * request handling on the main thread. Indexes open on use and close when idle beyond
 * `maxOpenIndexes` (see {@link OpenIndexes}).
 */

export function createEmbeddedEngine(options: EmbeddedEngineOptions): EmbeddedEngine {
  if (!nativeBuildChecked) {
    checkNativeBuild();
    nativeBuildChecked = true;
  }
  const logger = options.logger ?? silentLogger;
  const settings: IndexSettings = {
    embedder: options.embedder,
    reranker: options.reranker ?? createBuiltinReranker(),
    enricher: options.enricher ?? createBuiltinEnricher(),
    logger,
    hnswWorkers: Array.from({ length: options.vectorWorkers ?? defaultVectorWorkers() }, () => new HnswWorker(logger)),
    textShards: options.shardPool ?? new TextShards(options.textShards ?? defaultTextShards(), logger),
    hnsw: {
      m: options.hnsw?.m ?? 16,
      efConstruction: options.hnsw?.efConstruction ?? 64,
      efSearch: options.hnsw?.efSearch ?? 512,
    },
    indexingBatchSize: options.indexingBatchSize ?? 64,
    indexingBacklog: options.indexingBacklog ?? DEFAULT_INDEXING_BACKLOG,
    persistIntervalMs: options.persistIntervalMs ?? 30_000,
    onEmbed: options.onEmbed,
    turns: new CpuTurns(),
  };
  const folder = (indexId: string) => indexFolder(options.dataDir, indexId);
  const indexes = new OpenIndexes<EmbeddedIndex>(
    options.maxOpenIndexes ?? DEFAULT_MAX_OPEN_INDEXES,
    async (indexId) => {
      const dir = folder(indexId);
      mkdirSync(dir, { recursive: true });
      return new EmbeddedIndex(dir, settings);
    },
    (indexId, error) => logger.error({ err: error, indexId }, 'closing an index failed'),
  );
  let closed = false;
  // After close() began, an index is not opened again: it would stay open past the close (and its
  // vector workers) or, for work that holds another index, wait for a close that waits for it.
  const use: EmbeddedEngine['use'] = (indexId, work) =>
    closed ? Promise.reject(errors.shuttingDown()) : indexes.use(indexId, work);

  const engine: EmbeddedEngine = {
    async open(indexId: string): Promise<IndexEngine> {
      folder(indexId); // refuses an unsafe id now rather than at the first call
      return indexHandle((work) => use(indexId, work));
    },

    use,

    hasLocalData(indexId: string): boolean {
      return folderSize(folder(indexId)) > 0;
    },

    async describe(indexId: string): Promise<IndexSummary> {
      if (indexes.wasDropped(indexId)) return { vectorCount: 0, pendingVectorCount: 0, indexSize: 0 };
      const open = await indexes.peek(indexId)?.catch(() => undefined);
      if (open) {
        const { documents, pendingVectors } = open.counts();
        return { vectorCount: documents, pendingVectorCount: pendingVectors, indexSize: folderSize(open.folder) };
      }
      const { documents, withoutVector } = countDocuments(folder(indexId));
      return { vectorCount: documents, pendingVectorCount: withoutVector, indexSize: folderSize(folder(indexId)) };
    },

    async drop(indexId: string): Promise<void> {
      const dir = folder(indexId);
      // Retries ride out a file still being closed or written (EBUSY, ENOTEMPTY) by a late reader.
      await indexes.drop(indexId, () => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 }));
    },

    async sweep(existing): Promise<string[]> {
      // Folders are listed before the store is read: a folder is only ever created after its index
      // row, so a folder whose id is missing from the later read really is orphaned.
      const ids = await localIndexIds(options.dataDir);
      if (ids.length === 0) return [];
      const known = await existing(ids);
      const removed: string[] = [];
      for (const id of ids.filter((candidate) => !known.has(candidate))) {
        try {
          await engine.drop(id);
          removed.push(id);
        } catch (error) {
          logger.warn({ err: error, indexId: id }, 'could not remove data of a deleted index');
        }
      }
      return removed;
    },

    async stats(): Promise<EngineStats> {
      const stats: EngineStats = { openIndexes: 0, documents: 0, pendingVectors: 0 };
      for (const index of await indexes.openNow()) {
        const counts = index.counts();
        stats.openIndexes++;
        stats.documents += counts.documents;
        stats.pendingVectors += counts.pendingVectors;
      }
      return stats;
    },

    async close(): Promise<void> {
      closed = true;
      await indexes.closeAll();
      await Promise.all([...settings.hnswWorkers.map((worker) => worker.terminate()), settings.textShards.terminate()]);
    },
  };
  return engine;
}

/** An IndexEngine whose every call runs through `use` (so the index is open while it runs). */
export function indexHandle(use: <R>(work: (index: IndexEngine) => Promise<R>) => Promise<R>): IndexEngine {
  return {
    upsert: (namespace, docs, options) => use((index) => index.upsert(namespace, docs, options)),
    search: (namespace, request) => use((index) => index.search(namespace, request)),
    fetch: (namespace, selector, options) => use((index) => index.fetch(namespace, selector, options)),
    delete: (namespace, selector) => use((index) => index.delete(namespace, selector)),
    range: (namespace, request) => use((index) => index.range(namespace, request)),
    reset: (namespace) => use((index) => index.reset(namespace)),
    deleteNamespace: (namespace) => use((index) => index.deleteNamespace(namespace)),
    info: () => use((index) => index.info()),
    listNamespaces: () => use((index) => index.listNamespaces()),
  };
}

/**
 * Documents in a closed index's file, read without opening the index (0 when it has none), and
 * those of them without a vector yet (acknowledged, not indexed before it closed: they are at its
 * next open), counted only when the file notes some.
 */
function countDocuments(dir: string): { documents: number; withoutVector: number } {
  let db: Database.Database | undefined;
  try {
    const opened = new Database(databaseFile(dir), { readonly: true, fileMustExist: true });
    db = opened;
    const count = (sql: string) => opened.prepare(sql).pluck().get() as number;
    const documents = count('SELECT count(*) FROM documents');
    const noted = count(`SELECT count(*) FROM meta WHERE key = '${UNEMBEDDED_META}'`) > 0;
    return { documents, withoutVector: noted ? count(`SELECT count(*) FROM documents d WHERE ${WITHOUT_VECTOR}`) : 0 };
  } catch (error) {
    // Asked before the finally closes the database, which would give a descriptor back.
    if (sqliteOutOfDescriptors(error)) throw errors.outOfDescriptors(error);
    return { documents: 0, withoutVector: 0 }; // no data yet, or dropped meanwhile
  } finally {
    db?.close();
  }
}
