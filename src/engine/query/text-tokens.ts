import type { Json } from '../contract.js';

/** Separates the string values of a document in its flattened text, so field boundaries survive. */
export const FIELD_SEPARATOR = '\n';

const DIACRITICS = /\p{M}+/gu;
const TOKEN = /[\p{L}\p{N}]+/gu;

/**
 * Lowercase word tokens with diacritics removed. Mirrors FTS5's `unicode61 remove_diacritics 2`
 * tokenizer so that terms seen in JS (reranker, enricher, embedder) equal the terms in the FTS index.
 */
export function tokenize(text: string): string[] {
  // Pure-ASCII text (the common case) skips the comparatively slow Unicode normalization.
  const folded = isAscii(text) ? text.toLowerCase() : text.normalize('NFKD').replace(DIACRITICS, '').toLowerCase();
  return folded.match(TOKEN) ?? [];
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return false;
  return true;
}

/**
 * Every string value of a JSON value, depth first, joined by {@link FIELD_SEPARATOR}. This text is
 * what gets embedded, full-text indexed and reranked; numbers and booleans are left to filters.
 */
export function flattenText(value: Json): string {
  const parts: string[] = [];
  collectStrings(value, parts);
  return parts.join(FIELD_SEPARATOR);
}

function collectStrings(value: Json, parts: string[]): void {
  if (typeof value === 'string') {
    parts.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectStrings(item, parts);
  } else if (value !== null && typeof value === 'object') {
    for (const key in value) collectStrings(value[key], parts);
  }
}

/**
 * A safe FTS5 MATCH expression: each distinct token double-quoted (tokens never contain quotes)
 * and OR-ed, so user text can never produce an FTS syntax error. Returns null when nothing is searchable.
 */
export function ftsMatchQuery(query: string, maxTerms = 32): string | null {
  const terms = [...new Set(tokenize(query))].slice(0, maxTerms);
  return terms.length === 0 ? null : terms.map((term) => `"${term}"`).join(' OR ');
}
