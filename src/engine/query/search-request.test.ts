import { expect, test } from 'vitest';
import type { SearchRequest } from '../contract.js';
import { MAX_QUERY_LENGTH, validateSearchRequest } from './search-request.js';

const request = (query: string): SearchRequest => ({
  query,
  topK: 10,
  includeData: false,
  includeMetadata: false,
  semanticWeight: 0.5,
  reranking: false,
  inputEnrichment: false,
  keepOriginalQuery: false,
});
const refused = (query: string) => () => validateSearchRequest(request(query));

test('the query cap counts characters: a surrogate pair is one, any other UTF-16 unit one each', () => {
  expect(refused('🚀'.repeat(MAX_QUERY_LENGTH))).not.toThrow();
  expect(refused(`${'🚀'.repeat(MAX_QUERY_LENGTH - 1)}a`)).not.toThrow();
  expect(refused('🚀'.repeat(MAX_QUERY_LENGTH + 1))).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  // High surrogates without their low halves are characters each (the HTTP layer refuses them, but
  // the engine's own check must not let a run of them pass as one).
  expect(refused('\ud83d'.repeat(MAX_QUERY_LENGTH + 1))).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  expect(refused('a'.repeat(MAX_QUERY_LENGTH + 1))).toThrow(expect.objectContaining({ code: 'invalid_request' }));
});
