import { appendPath, postJson, upstreamError } from './http-json-client.js';
import type { RerankDocument, Reranker, RerankerConfig } from './provider-types.js';

interface RankedItem {
  index?: unknown;
  relevance_score?: unknown;
  score?: unknown;
}

/**
 * Reranker for Cohere- and TEI-compatible `POST {url}/rerank` endpoints. Sends both `documents`
 * (Cohere) and `texts` (TEI) and accepts either response shape:
 * `{results: [{index, relevance_score}]}` or `[{index, score}]`.
 */
export function createHttpReranker(config: RerankerConfig & { url: string }): Reranker {
  const url = appendPath(config.url, '/rerank');
  const options = {
    service: 'Rerank endpoint',
    apiKey: config.apiKey,
    timeoutMs: config.timeoutMs ?? 30_000,
    retries: 2,
  };
  return {
    async rerank(query: string, docs: RerankDocument[]) {
      if (docs.length === 0) return [];
      const texts = docs.map((doc) => doc.text);
      const body = await postJson(
        url,
        { model: config.model, query, documents: texts, texts, top_n: docs.length, return_documents: false },
        options,
      );
      const items = (Array.isArray(body) ? body : (body as { results?: unknown })?.results) as RankedItem[] | undefined;
      if (!Array.isArray(items)) throw upstreamError(url, options.service, 'expected "results" or a list of scores');
      const scores = new Array<number>(docs.length).fill(0);
      for (const item of items) {
        const score = typeof item.relevance_score === 'number' ? item.relevance_score : item.score;
        if (typeof item.index !== 'number' || typeof score !== 'number' || !(item.index in scores)) {
          throw upstreamError(url, options.service, 'malformed score entry');
        }
        scores[item.index] = score;
      }
      // Cross-encoders may return raw logits (TEI with raw_scores); squash them into 0..1 like Cohere's.
      return scores.some((score) => score < 0 || score > 1) ? scores.map((s) => 1 / (1 + Math.exp(-s))) : scores;
    },
  };
}
