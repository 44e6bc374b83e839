/**
 * The contract between the data plane and the search engine behind each index. The embedded
 * engine (embedded/: SQLite + full-text + HNSW files under the data dir) implements it, and so does
 * the PostgreSQL engine (postgres/: PostgreSQL as the system of record, the embedded files as each
 * node's disposable materialization).
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
  /** Told what the hits' documents will cost in memory before they are parsed (see {@link ReadOptions}). */
  budget?: ReadBudget;
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
  /** Told what the documents a read found will cost in memory, before they are parsed; may refuse (throw). */
  budget?: ReadBudget;
}

/** Memory for the documents of reads in flight (see services/data-plane/read-bytes-budget.ts). */
export interface ReadBudget {
  /** Takes `bytes` more for this read, or throws when the node holds too much already. */
  reserve(bytes: number): void;
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

/** Counts and size of an index, read without keeping it open. */
export interface IndexSummary {
  vectorCount: number;
  pendingVectorCount: number;
  /** Bytes stored for the index. */
  indexSize: number;
}

/** What the engine holds on this node right now (for metrics). */
export interface EngineStats {
  openIndexes: number;
  /** Documents of the open indexes. */
  documents: number;
  /** Vectors of the open indexes committed but not yet in a vector graph. */
  pendingVectors: number;
}

/** What the caller of {@link SearchEngine.open} already knows about the index, for one request. */
export interface OpenOptions {
  /**
   * The index's last change number in the system of record (PostgreSQL mode), read after the
   * request began (the data plane reads it with the token lookup, in the same query). Reads
   * through the handle then trust it instead of asking for the head again: a replica holding
   * that change holds everything committed before the request began. Other engines ignore it.
   */
  recordHead?: number;
}

/** Owns every index's engine on this node. */
export interface SearchEngine {
  /**
   * A handle on the data of an index. Opening is lazy: each call on the handle opens the index if
   * needed and keeps it open while it runs; idle indexes close as the engine sees fit.
   */
  open(indexId: string, options?: OpenOptions): Promise<IndexEngine>;
  /** Counts and size of an index without keeping it open. */
  describe(indexId: string): Promise<IndexSummary>;
  /** Closes the index and removes all its data. */
  drop(indexId: string): Promise<void>;
  /**
   * Removes the data of indexes that no longer exist (deleted while this node was down, or with
   * their account); `existing` tells which of the given ids still exist. Returns the ids removed.
   */
  sweep(existing: (indexIds: string[]) => Promise<Set<string>>): Promise<string[]>;
  stats(): Promise<EngineStats>;
  /** Persists vector indexes and closes every open index. */
  close(): Promise<void>;
}
