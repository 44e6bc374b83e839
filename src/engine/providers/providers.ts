import { createBuiltinEmbedder } from './builtin-embedder.js';
import { createBuiltinEnricher } from './builtin-enricher.js';
import { createBuiltinReranker } from './builtin-reranker.js';
import { createHttpEnricher } from './http-enricher.js';
import { createHttpReranker } from './http-reranker.js';
import { createOnnxEmbedder } from './onnx-embedder.js';
import { createOpenAiEmbedder } from './openai-embedder.js';
import type { Embedder, EmbedderConfig, Enricher, EnricherConfig, Reranker, RerankerConfig } from './provider-types.js';

/** The embedder for a configuration: `builtin` (offline hashing), `openai` (HTTP) or `onnx` (in-process model). */
export function createEmbedder(config: EmbedderConfig): Embedder {
  // --- onnx: an optional package, resolved here and loaded on first embed ---
  if (config.provider === 'onnx') {
    if (!config.model || !config.cacheDir) throw new Error('onnx embedder needs a model and a cache directory');
    return createOnnxEmbedder({ ...config, model: config.model, cacheDir: config.cacheDir });
  }
  return config.provider === 'openai' ? createOpenAiEmbedder(config) : createBuiltinEmbedder(config.dimensions);
}

/** HTTP (Cohere/TEI) reranker when a url is configured, the builtin one otherwise. */
export function createReranker(config: RerankerConfig = {}): Reranker {
  return config.url ? createHttpReranker({ ...config, url: config.url }) : createBuiltinReranker();
}

/** HTTP (chat completions) enricher with builtin fallback when a url is configured, builtin otherwise. */
export function createEnricher(config: EnricherConfig = {}): Enricher {
  const builtin = createBuiltinEnricher();
  return config.url ? createHttpEnricher({ ...config, url: config.url }, builtin) : builtin;
}
