import { openAiEndpoint, postJson, upstreamError } from './http-json-client.js';
import type { Embedder, EmbedderConfig } from './provider-types.js';

interface EmbeddingsResponse {
  data?: { embedding?: unknown; index?: number }[];
}

/**
 * Embedder for any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, TEI, vLLM, Ollama...).
 * Texts are sent in batches of `batchSize`; the dimensions are learned from the first response
 * unless configured, and a response of another size is rejected.
 */
export function createOpenAiEmbedder(config: EmbedderConfig): Embedder {
  if (!config.url) throw new Error('openai embedder needs a url');
  if (!config.model) throw new Error('openai embedder needs a model');
  const url = openAiEndpoint(config.url, 'embeddings');
  const model = config.model;
  const batchSize = config.batchSize ?? 64;
  const options = {
    service: 'Embeddings endpoint',
    apiKey: config.apiKey,
    timeoutMs: config.timeoutMs ?? 30_000,
    retries: config.retries ?? 3,
  };
  let dimensions = config.dimensions;

  async function embedBatch(input: string[]): Promise<Float32Array[]> {
    // OpenAI rejects empty strings; a document without text still needs a (meaningless) vector.
    const body = (await postJson(
      url,
      { model, input: input.map((text) => text || ' ') },
      options,
    )) as EmbeddingsResponse;
    if (!Array.isArray(body?.data) || body.data.length !== input.length) {
      throw upstreamError(url, options.service, `expected ${input.length} embeddings in "data"`);
    }
    const vectors = new Array<Float32Array>(input.length);
    body.data.forEach((item, position) => {
      const index = typeof item.index === 'number' ? item.index : position;
      if (!Array.isArray(item.embedding) || vectors[index] !== undefined || index >= input.length) {
        throw upstreamError(url, options.service, 'malformed "data" entry');
      }
      dimensions ??= item.embedding.length;
      if (item.embedding.length !== dimensions) {
        throw upstreamError(url, options.service, `got ${item.embedding.length} dimensions, expected ${dimensions}`);
      }
      vectors[index] = Float32Array.from(item.embedding as number[]);
    });
    return vectors;
  }

  return {
    name: `openai/${model}`,
    get dimensions() {
      return dimensions;
    },
    async embed(texts) {
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        vectors.push(...(await embedBatch(texts.slice(start, start + batchSize))));
      }
      return vectors;
    },
  };
}
