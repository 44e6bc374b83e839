import type { Config } from './config.js';
import {
  createEmbeddedEngine,
  createEmbedder,
  createEnricher,
  createPostgresEngine,
  createReranker,
  type EmbeddedEngineOptions,
  type EngineLogger,
  type SearchEngine,
} from './engine/index.js';
import { embedSeconds } from './metrics/metrics.js';
import type { Clock } from './services/clock.js';
import type { Store } from './store/database.js';

/** The engine settings a configuration chooses (models, caps) for index files under `dataDir`. */
export function engineOptions(config: Config, dataDir: string, logger: EngineLogger): EmbeddedEngineOptions {
  return {
    dataDir,
    embedder: createEmbedder(config.embeddings),
    reranker: createReranker(config.rerank),
    enricher: createEnricher({ ...config.enrichment, logger }),
    logger,
    maxOpenIndexes: config.maxOpenIndexes,
    vectorWorkers: config.vectorWorkers,
    textShards: config.textShards,
    indexingBacklog: config.indexingBacklog,
    hnsw: config.hnsw,
    onEmbed: (seconds) => embedSeconds.observe(seconds),
  };
}

/**
 * The search engine of a server: on PostgreSQL the index data lives there too, and the files under
 * the data dir are this node's replicas of it; embedded, they are the data.
 */
export function createEngine(config: Config, store: Store, logger: EngineLogger, clock: Clock): SearchEngine {
  const options = engineOptions(config, config.dataDir, logger);
  return store.dialect === 'postgres'
    ? createPostgresEngine({
        ...options,
        db: store.db,
        listen: store.listen,
        clock,
        heartbeatMs: store.transactionHeartbeatMs,
      })
    : createEmbeddedEngine(options);
}
