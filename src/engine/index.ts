/**
 * The search engine behind every index: embedded (per-index SQLite, full-text and HNSW files) or
 * on PostgreSQL (the system of record, with the embedded files as each node's replicas); hybrid
 * search with reranking and query enrichment, and the filter language of `@upstash/search`.
 */

export type * from './contract.js';
export { createEmbeddedEngine, type EmbeddedEngineOptions } from './embedded/embedded-engine.js';
export { createPostgresEngine, type PostgresEngineOptions } from './postgres/postgres-engine.js';
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
} from './providers/provider-types.js';
export { createEmbedder, createEnricher, createReranker } from './providers/providers.js';
export { DOCUMENT_LIMITS } from './query/document-validation.js';
export type { FilterField, FilterNode, FilterOperator, FilterValue } from './query/filter-parser.js';
export { parseFilter } from './query/filter-parser.js';
export { MAX_PAGE_SIZE } from './query/request-checks.js';
export { MAX_QUERY_LENGTH, MAX_TOP_K } from './query/search-request.js';
