import { tokenize } from '../query/text-tokens.js';
import { openAiEndpoint, postJson } from './http-json-client.js';
import type { Enricher, EnricherConfig, Vocabulary } from './provider-types.js';

const INSTRUCTIONS =
  'You rewrite search queries for a keyword and vector search engine. Reply with one line: the query ' +
  'with spelling corrected, followed by up to 5 closely related search terms, separated by spaces. ' +
  'No explanations, no punctuation.';
const MAX_TERMS = 32;

/**
 * Enricher backed by an OpenAI-compatible `/v1/chat/completions` model. Any failure (endpoint
 * down, timeout, unusable answer) is logged and the `fallback` enricher answers instead, so
 * enrichment never fails a search.
 */
export function createHttpEnricher(config: EnricherConfig & { url: string }, fallback: Enricher): Enricher {
  const url = openAiEndpoint(config.url, 'chat/completions');
  const options = {
    service: 'Enrichment endpoint',
    apiKey: config.apiKey,
    timeoutMs: config.timeoutMs ?? 10_000,
    retries: 1,
  };
  return {
    async expand(query: string, vocabulary: Vocabulary) {
      try {
        const body = (await postJson(
          url,
          {
            model: config.model,
            temperature: 0,
            messages: [
              { role: 'system', content: INSTRUCTIONS },
              { role: 'user', content: query },
            ],
          },
          options,
        )) as { choices?: { message?: { content?: unknown } }[] };
        const answer = body?.choices?.[0]?.message?.content;
        const terms = typeof answer === 'string' ? tokenize(answer.split('\n')[0]).slice(0, MAX_TERMS) : [];
        if (terms.length === 0) throw new Error('the model returned no terms');
        return terms.join(' ');
      } catch (error) {
        config.logger?.warn({ err: error }, 'query enrichment endpoint failed; using builtin enrichment');
        return fallback.expand(query, vocabulary);
      }
    },
  };
}
