import type { Json } from '../contract.js';

/** Separates the string values of a document in its flattened text, so field boundaries survive. */
export const FIELD_SEPARATOR = '\n';

const DIACRITICS = /\p{M}+/gu;
const TOKEN = /[\p{L}\p{N}]+/gu;

/**
 * Lowercase word tokens (letters and digits) with diacritics removed: the words every part of the
 * engine sees (full-text index, enricher, reranker, embedder).
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
  return textFields(value).join(FIELD_SEPARATOR);
}

/** Every string value of a JSON value, depth first: the text fields of a document. */
export function textFields(value: Json): string[] {
  const parts: string[] = [];
  collectStrings(value, parts);
  return parts;
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
