import type { AnalyzedQuery } from '../../query/analyzer.js';

/** Edits a spelling candidate may be away from a query word (what the builtin enricher looks for). */
export const SPELLING_DISTANCE = 2;

/** A shard's counts for a query's terms (`dfs` aligned with the terms asked for). */
export interface ShardStatistics {
  documents: number;
  totalLength: number;
  dfs: number[];
  /** The query's vector, when shard 0 was asked to embed it (normalized). */
  vector?: Float32Array;
  /** Per word asked about, spelling candidates when the shard does not know its term. */
  candidates?: string[][];
}

/** What a statistics request may ask besides the counts. */
export interface StatisticsOptions {
  /** The query's text and the lexical embedder shard 0 embeds it with. */
  embedQuery?: { text: string; embedder: string };
  /** Query words (folded) and their terms, for spelling candidates of those the shard does not know. */
  spelling?: { words: string[]; terms: string[] };
}

/** Vectors a shard made: back to back in one array (so they travel without copying), and the time it took. */
export interface EmbeddedVectors {
  vectors: Float32Array;
  seconds: number;
}

/**
 * The documents a shard indexed (labels, Float64Array) and, when asked to embed them, their ids,
 * the codes (vector-codes.ts) of their vectors back to back and the time that took.
 */
export interface IndexedDocuments {
  labels: Float64Array;
  ids?: string[];
  codes?: Uint8Array;
  seconds?: number;
}

/** Statistics over every shard, with the terms they are for: what a search scores with. */
export interface SummedStatistics {
  terms: string[];
  documents: number;
  totalLength: number;
  dfs: number[];
}

/** The requests a text shard worker answers (see text-shard.worker.ts). */
export type ShardRequest =
  /**
   * Opens the shard (from its snapshot file when usable) over the index's SQLite file `database`;
   * answers `{ labels: Float64Array }`, those it holds.
   */
  | { type: 'open'; key: string; database: string; file?: string }
  /**
   * Indexes committed documents, read from SQLite by label (those replaced or deleted since are
   * gone and skipped); answers {@link IndexedDocuments}.
   */
  | { type: 'add'; key: string; labels: Float64Array; embedder?: string }
  /** Removes document versions; answers how many it held. */
  | { type: 'remove'; key: string; labels: Float64Array }
  | ({ type: 'statistics'; key: string; terms: string[] } & StatisticsOptions)
  /** Answers `{ labels, scores }` (Float64Arrays, best first). */
  | {
      type: 'search';
      key: string;
      query: AnalyzedQuery;
      k: number;
      filter?: Float64Array;
      statistics: SummedStatistics;
    }
  | { type: 'scores'; key: string; query: AnalyzedQuery; labels: number[]; statistics: SummedStatistics }
  /** Answers the query expanded from its best matches (query/feedback.ts): their text fields and scores. */
  | { type: 'expand'; query: AnalyzedQuery; feedback: { fields: string[]; score: number }[] }
  /** {@link EmbeddedVectors} of documents not written yet, with the shard's statistics (PostgreSQL mode's writes). */
  | { type: 'embed'; key?: string; fields: string[][]; embedder: string }
  /** Writes the snapshot file when the shard is worth one; answers whether it wrote. */
  | { type: 'snapshot'; key: string; file: string }
  /** Drops the shard, writing its snapshot first when `file` is given. */
  | { type: 'close'; key: string; file?: string }
  | { type: 'crash' };
