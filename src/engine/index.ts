/**
 * The embedded search engine: per-index SQLite (documents + FTS5) and HNSW files, hybrid
 * search with reranking and query enrichment, and the filter language of `@upstash/search`.
 */

export { DOCUMENT_LIMITS } from './document-validation.js';
export { createEmbeddedEngine, type EmbeddedEngineOptions } from './embedded-engine.js';
export type { FilterField, FilterNode, FilterOperator, FilterValue } from './filter-parser.js';
export { parseFilter } from './filter-parser.js';
export { MAX_TOP_K } from './hybrid-search.js';
export type {
  Embedder,
  EmbedderConfig,
  EngineLogger,
  Enricher,
  EnricherConfig,
  RerankDocument,
  Reranker,
  RerankerConfig,
  Vocabulary,
} from './provider-types.js';
export { createEmbedder, createEnricher, createReranker } from './providers.js';
export type * from './types.js';
