/**
 * The contract between the data plane and the search engine behind each index.
 * The embedded engine (SQLite + FTS5 + HNSW files under the data dir) implements it; a
 * PostgreSQL engine can implement the same interface later without touching the HTTP layer.
 *
 * "Namespace" is what the `@upstash/search` SDK calls an index (`client.index(name)`).
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface DocumentInput {
  id: string;
  content: JsonObject;
  metadata?: JsonObject;
}

export interface DocumentOutput {
  id: string;
  content?: JsonObject;
  metadata?: JsonObject;
}

export interface SearchHit extends DocumentOutput {
  /** 0..1, best first. */
  score: number;
}

export interface SearchRequest {
  query: string;
  topK: number;
  includeData: boolean;
  includeMetadata: boolean;
  filter?: string;
  /** 0 = pure full-text, 1 = pure vector. */
  semanticWeight: number;
  /** Use the stronger re-scorer; the caller has already checked the rerank quota. */
  reranking: boolean;
  /** Expand the query (the caller has checked that the index allows it). */
  inputEnrichment: boolean;
  /** With enrichment: keep the original query terms beside the expansion. */
  keepOriginalQuery: boolean;
}

export interface SearchOutcome {
  hits: SearchHit[];
  /** How many documents the stronger re-scorer scored (0 when reranking was off). */
  rerankedDocuments: number;
}

export interface ReadOptions {
  includeData: boolean;
  includeMetadata: boolean;
}

export type FetchSelector = { ids: string[] } | { prefix: string; limit: number };
export type DeleteSelector = { ids: string[] } | { prefix: string } | { filter: string };

export interface RangeRequest extends ReadOptions {
  cursor: string;
  limit: number;
  prefix?: string;
}

export interface RangeResult {
  /** "" when the scan is complete. */
  nextCursor: string;
  documents: DocumentOutput[];
}

export interface NamespaceInfo {
  vectorCount: number;
  pendingVectorCount: number;
}

export interface IndexInfo {
  vectorCount: number;
  pendingVectorCount: number;
  /** Bytes on disk for this index (database + vector files). */
  indexSize: number;
  namespaces: Record<string, NamespaceInfo>;
}

export interface UpsertOptions {
  /** Total documents allowed in the whole index; -1 for unlimited. */
  maxVectorCount: number;
}

/** One search index's data. All methods throw AppError (src/errors.ts) on bad input. */
export interface IndexEngine {
  upsert(namespace: string, docs: DocumentInput[], options: UpsertOptions): Promise<void>;
  search(namespace: string, request: SearchRequest): Promise<SearchOutcome>;
  /** For ids: aligned with the ids, null where missing. */
  fetch(namespace: string, selector: FetchSelector, options: ReadOptions): Promise<(DocumentOutput | null)[]>;
  delete(namespace: string, selector: DeleteSelector): Promise<number>;
  range(namespace: string, request: RangeRequest): Promise<RangeResult>;
  /** Removes every document of the namespace. */
  reset(namespace: string): Promise<void>;
  /** Throws namespace_not_found when it does not exist. */
  deleteNamespace(namespace: string): Promise<void>;
  info(): Promise<IndexInfo>;
  listNamespaces(): Promise<string[]>;
}

/** Owns every index's engine on this node. */
export interface SearchEngine {
  /** Opens (lazily, cached) the data of an index. */
  open(indexId: string): Promise<IndexEngine>;
  /** Closes the index and removes all its data from disk. */
  drop(indexId: string): Promise<void>;
  /** Persists vector indexes and closes every open index. */
  close(): Promise<void>;
}
