/**
 * Pluggable model-like parts of the engine: embedding, reranking and query enrichment. Each has an
 * offline deterministic builtin and an HTTP implementation for OpenAI/Cohere/TEI-compatible servers.
 */

import type { AnalyzedDocument, Term } from '../query/analyzer.js';

/** Structured logger (pino-compatible subset). */
export interface EngineLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/**
 * Statistics of the namespace a text is embedded for, over its live documents. Lexical embedders
 * weight their features by them (rare terms count more); model embedders ignore them.
 */
export interface TermStatistics {
  readonly documentCount: number;
  /** Documents holding the (stemmed) term. */
  documentFrequency(term: string): number;
  /** Occurrences of a character trigram (see analyzer.ts `termTrigrams`) over the distinct terms of the documents. */
  trigramFrequency(trigram: string): number;
  /**
   * Optional fast path, at most one lookup per term: its document frequency and the frequencies of
   * its trigrams in `termTrigrams` order; undefined when the term is unknown. The answer is reused
   * by the next call: read it before calling again.
   */
  termProfile?(term: Term): TermProfile | undefined;
}

export interface TermProfile {
  documentFrequency: number;
  trigramFrequencies: ArrayLike<number>;
}

/** Turns texts into vectors. Vectors need not be normalized; the engine L2-normalizes them. */
export interface Embedder {
  /** Identifies the model; stored with each index so a different model is refused at open. */
  readonly name: string;
  /** Undefined until known (an HTTP embedder without configured dimensions learns them on first use). */
  readonly dimensions: number | undefined;
  embed(texts: string[], statistics?: TermStatistics): Promise<Float32Array[]>;
  /**
   * Lexical embedders only: the vectors of documents already analyzed (analyzer.ts
   * `analyzeFields`), which saves analyzing them twice on the write path.
   */
  embedTerms?(docs: readonly AnalyzedDocument[], statistics?: TermStatistics): Float32Array[];
}

export interface RerankDocument {
  id: string;
  /** The document's flattened text; string fields separated by newlines. */
  text: string;
  /** First-stage hybrid score (0..1); builtin reranking blends it in, HTTP rerankers ignore it. */
  score?: number;
}

/** Re-scores candidates with a stronger (slower) model. */
export interface Reranker {
  /** Whether it computes on the calling thread (CPU work) rather than calling a service. */
  readonly local?: boolean;
  /**
   * Scores aligned with `docs`, each 0..1, higher is more relevant. `statistics` are the
   * namespace's (the builtin scorer weights query words by them; model rerankers ignore them).
   */
  rerank(query: string, docs: RerankDocument[], statistics?: TermStatistics): Promise<number[]>;
}

/** The words of one namespace's full-text index, for spelling suggestions. */
export interface Vocabulary {
  /** Whether a query word (folded: lowercase, no diacritics) matches a term of the namespace. */
  has(word: string): boolean;
  /**
   * Words of the namespace that may be within `maxDistance` edits of `word` (a superset: callers
   * verify), found without scanning the vocabulary.
   */
  candidates(word: string, maxDistance: number): readonly string[];
}

/** Rewrites a query before search (spelling fixes, related terms). */
export interface Enricher {
  /** The rewritten query; the caller decides whether to keep the original beside it. */
  expand(query: string, vocabulary: Vocabulary): Promise<string>;
}

export interface EmbedderConfig {
  provider: 'builtin' | 'openai' | 'onnx';
  /** builtin: vector size (default 256); openai: expected size (learned from the first response if unset). */
  dimensions?: number;
  /** openai: base URL, with or without `/v1`. */
  url?: string;
  model?: string;
  apiKey?: string;
  /** openai: texts per request (default 64). */
  batchSize?: number;
  /** openai: per-request timeout (default 30 s). */
  timeoutMs?: number;
  /** openai: retries on network errors, 429 and 5xx (default 3). */
  retries?: number;
  // --- onnx (see providers/onnx-embedder.ts); `model` is a local directory or a model id ---
  /** onnx: where a model id is looked for and downloaded to. */
  cacheDir?: string;
  /** onnx: inputs are truncated to this many tokens (default 256). */
  maxTokens?: number;
  /** onnx: the 8-bit `model_quantized.onnx` (default) rather than `model.onnx`. */
  quantized?: boolean;
  /** onnx: `mean` over the tokens (default) or the `cls` token's vector. */
  pooling?: 'mean' | 'cls';
}

/** Without `url` the builtin reranker is used. */
export interface RerankerConfig {
  url?: string;
  model?: string;
  apiKey?: string;
  timeoutMs?: number;
}

/** Without `url` the builtin enricher is used. */
export interface EnricherConfig {
  url?: string;
  model?: string;
  apiKey?: string;
  timeoutMs?: number;
  /** Receives a warning when the HTTP enricher fails and the builtin one is used instead. */
  logger?: EngineLogger;
}
