import { tokenize } from '../query/text-tokens.js';
import type { Enricher, Vocabulary } from './provider-types.js';

/** Corrections kept per misspelled term; more would dilute the query. */
const MAX_CORRECTIONS = 3;
const MIN_LENGTH = 4;

/**
 * Spelling expansion from the namespace's own vocabulary: a query term the index does not know is
 * replaced by the indexed terms closest to it (edit distance with transpositions: ≤ 1 for terms of
 * 4–7 characters, ≤ 2 from 8). Known terms, short terms and numbers pass through unchanged.
 */
export function createBuiltinEnricher(): Enricher {
  return { expand: async (query, vocabulary) => expandTerms(query, vocabulary) };
}

function expandTerms(query: string, vocabulary: Vocabulary): string {
  const out = new Set<string>();
  for (const term of tokenize(query)) {
    if (term.length < MIN_LENGTH || vocabulary.has(term) || /^\p{N}+$/u.test(term)) {
      out.add(term);
      continue;
    }
    const corrections = closestTerms(term, vocabulary);
    for (const correction of corrections.length > 0 ? corrections : [term]) out.add(correction);
  }
  return [...out].join(' ');
}

function closestTerms(term: string, vocabulary: Vocabulary): string[] {
  const maxDistance = term.length >= 8 ? 2 : 1;
  const found: { term: string; distance: number }[] = [];
  for (const candidate of vocabulary.candidates(term, maxDistance)) {
    const distance = editDistance(term, candidate, maxDistance);
    if (distance <= maxDistance) found.push({ term: candidate, distance });
  }
  found.sort((a, b) => a.distance - b.distance || (a.term < b.term ? -1 : 1));
  const best = found[0]?.distance;
  return found
    .filter((entry) => entry.distance === best)
    .slice(0, MAX_CORRECTIONS)
    .map((entry) => entry.term);
}

/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions, so "serach" is one
 * edit from "search"). Returns `limit + 1` as soon as every cell of a row exceeds the limit.
 */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let beforePrevious = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, beforePrevious[j - 2] + 1);
      }
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    [beforePrevious, previous, current] = [previous, current, beforePrevious];
  }
  return previous[b.length];
}
