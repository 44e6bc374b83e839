import { AppError } from '../../errors.js';
import type { SearchRequest } from '../contract.js';

/** Largest topK accepted; deeper pages are not a search use case and would scan too much. */
export const MAX_TOP_K = 1000;

/**
 * Longest query accepted, in characters: a document's content may hold as much, so any document
 * can be the query. Analysis and enrichment take time in proportion (about 1 s of the main thread
 * for 900 KB), which no search may spend while every other request waits.
 */
export const MAX_QUERY_LENGTH = 4096;

/** Checks a search request's fields; throws `invalid_request` naming the field. */
export function validateSearchRequest(request: SearchRequest): void {
  if (typeof request.query !== 'string' || request.query.trim() === '') {
    throw new AppError('invalid_request', 'query must be a non-empty string', {
      details: [{ field: 'query', message: 'required' }],
    });
  }
  if (request.query.length > MAX_QUERY_LENGTH && characters(request.query) > MAX_QUERY_LENGTH) {
    throw new AppError('invalid_request', `query must be at most ${MAX_QUERY_LENGTH} characters`, {
      details: [{ field: 'query', message: `longer than ${MAX_QUERY_LENGTH} characters` }],
    });
  }
  if (!Number.isInteger(request.topK) || request.topK < 1 || request.topK > MAX_TOP_K) {
    throw new AppError('invalid_request', `topK must be an integer from 1 to ${MAX_TOP_K}`, {
      details: [{ field: 'topK', message: `must be 1..${MAX_TOP_K}` }],
    });
  }
  const weight = request.semanticWeight;
  if (typeof weight !== 'number' || !(weight >= 0 && weight <= 1)) {
    throw new AppError('invalid_request', 'semanticWeight must be a number from 0 to 1', {
      details: [{ field: 'semanticWeight', message: 'must be 0..1' }],
    });
  }
  if (request.filter !== undefined && typeof request.filter !== 'string') {
    throw new AppError('invalid_request', 'filter must be a string', {
      details: [{ field: 'filter', message: 'must be a string' }],
    });
  }
}

/** Length in Unicode characters (code points), as the schema's maxLength counts: an emoji is one. */
function characters(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
    // A high surrogate followed by a low one is one character with it; counted at the low one.
    if (unit < 0xd800 || unit > 0xdbff || next < 0xdc00 || next > 0xdfff) count++;
  }
  return count;
}
