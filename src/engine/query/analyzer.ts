import { stem } from 'porter2';
import { scanWords, tokenize, type Words } from './text-tokens.js';
import { WordMemory } from './word-memory.js';

/*
 * Text analysis for full-text search: words folded (lowercase, diacritics removed), stemmed with
 * the English Snowball stemmer (Porter2: "wars" and "war" match, "studies" and "study"), and
 * weighted by field, so the same analysis serves indexing, queries, spelling suggestions and the
 * builtin embedder's features.
 */

/**
 * Common English function words. They are indexed (so a query made only of them still finds
 * documents), but dropped from queries that have other words: BM25 gives them almost no weight
 * and they match nearly every document, which only costs time.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it ' +
    'its me my no nor not of on or our she so such than that the their them then there these they this those to ' +
    'too was we were what when where which while who whom why will with would you your'
  ).split(' '),
);

/** A field of at most this many words counts as short (a title, a name, a label). */
export const SHORT_FIELD_WORDS = 16;
/**
 * Term frequencies of a short field count this many times (BM25F-style field weighting): a query
 * word in a title says more about a document than the same word in its body. Applied only when the
 * document has a longer field, so single-field documents are scored plainly.
 */
export const SHORT_FIELD_WEIGHT = 2;

/** Words remembered with their terms; past this the memory is emptied, between two analyses. */
export const MAX_CACHED_STEMS = 200_000;
/** Folded word → its term; and term text → term, so that every word with one stem shares one object. */
const termsByWord = new WordMemory<Term>();
const termsByText = new Map<string, Term>();

/**
 * An index term (a stem), interned: every word that stems to it, in every document, yields this
 * one object. Writers keep what they derive from a term on it (its full-text id, an embedder's
 * feature slots) instead of looking the text up again in their own dictionaries: on the write path
 * each such lookup in a large Map is a cache miss, and a document has a hundred distinct terms.
 * The memo fields are plain numbers and typed arrays, so a term never keeps its users alive.
 */
export class Term {
  private grams: readonly string[] | undefined;
  /** Memo of a hashing embedder (`slotsOwner`): signed feature slots of the term, then of its trigrams. */
  slots: Int32Array | undefined = undefined;
  slotsOwner = 0;
  /** Memo of a lexical embedder: where its embedding call `weightsCall` put the features' weights. */
  weightsCall = 0;
  weightsAt = 0;
  /** Memo of the full-text dictionary (number `fullTextDictionary`) that last resolved the term: its id there. */
  fullTextDictionary = 0;
  fullTextId = -1;
  /** Scratch of {@link analyzeFields}: the analysis that last counted the term, and its position there. */
  stamp = 0;
  position = 0;

  constructor(readonly text: string) {}

  /** {@link termTrigrams} of the text, computed on first use. */
  get trigrams(): readonly string[] {
    this.grams ??= termTrigrams(this.text);
    return this.grams;
  }
}

/**
 * The term of a folded token: its stem (numbers and very short words are kept as they are). Never
 * evicts: an analysis that counts terms by identity must not see one stem as two objects, so the
 * memory is bounded between analyses instead (see {@link boundTermMemory}).
 */
function termOf(token: string): Term {
  const slot = termsByWord.find(token);
  return slot >= 0 ? termsByWord.valueAt(slot) : termsByWord.valueAt(remember(token));
}

/** Adds a folded word (not held) to the word memory with its term; returns its slot there. */
function remember(word: string): number {
  const text = word.length < 3 || /^\p{N}+$/u.test(word) ? word : stem(word);
  let term = termsByText.get(text);
  if (term === undefined) {
    term = new Term(text);
    termsByText.set(text, term);
  }
  return termsByWord.insert(word, term);
}

/** Empties the word memory once it holds {@link MAX_CACHED_STEMS} words (called before an analysis). */
function boundTermMemory(): void {
  if (termsByWord.size < MAX_CACHED_STEMS) return;
  termsByWord.clear();
  termsByText.clear();
}

/** Words remembered now (for tests of the bound). */
export function termMemorySize(): number {
  return termsByWord.size;
}

/** The index term of a folded token, as text (see {@link termOf}). */
export function stemToken(token: string): string {
  boundTermMemory();
  return termOf(token).text;
}

/**
 * The character trigrams of a term with word boundaries (`#` before and after): "war" →
 * "#wa", "war", "ar#". Subword features for typo and morphology tolerance (builtin embedder) and
 * their statistics (the full-text index counts them).
 */
export function termTrigrams(term: string): readonly string[] {
  const padded = `#${term}#`;
  const grams: string[] = [];
  for (let i = 0; i + 3 <= padded.length; i++) grams.push(padded.slice(i, i + 3));
  return grams;
}

/** One document's analysis: its distinct terms with weighted frequencies, and its weighted length (integers). */
export interface AnalyzedDocument {
  /** Distinct terms, in order of first appearance. */
  terms: Term[];
  /** The weighted frequency of each of `terms`. */
  frequencies: number[];
  /** A surface form (folded, unstemmed word) of each of `terms`, for spelling suggestions. */
  surfaces: string[];
  length: number;
}

let analyses = 0;

/** Analyzes the string fields of a document (in order). */
export function analyzeFields(fields: readonly string[]): AnalyzedDocument {
  let longest = 0;
  fields.forEach((field, f) => {
    if (f === fieldWords.length) fieldWords.push({ bounds: new Int32Array(256), count: 0, strings: [], ascii: true });
    longest = Math.max(longest, scanWords(field, fieldWords[f]).count);
  });
  boundTermMemory();
  // Each word's term comes from the word memory; a term's first word is its surface form.
  const stamp = ++analyses;
  const terms: Term[] = [];
  const frequencies: number[] = [];
  const surfaces: string[] = [];
  let length = 0;
  fields.forEach((field, f) => {
    const { bounds, count, strings } = fieldWords[f];
    const weight = count <= SHORT_FIELD_WORDS && count < longest ? SHORT_FIELD_WEIGHT : 1;
    length += weight * count;
    for (let i = 0; i < count * 2; i += 2) {
      const start = bounds[i];
      let slot: number;
      if (start < 0) {
        const token = strings[bounds[i + 1]];
        slot = termsByWord.find(token);
        if (slot < 0) slot = remember(token);
      } else {
        slot = termsByWord.findIn(field, start, bounds[i + 1]);
        if (slot < 0) slot = remember(field.slice(start, bounds[i + 1]).toLowerCase());
      }
      const term = termsByWord.valueAt(slot);
      if (term.stamp === stamp) {
        frequencies[term.position] += weight;
      } else {
        term.stamp = stamp;
        term.position = terms.length;
        terms.push(term);
        frequencies.push(weight);
        surfaces.push(termsByWord.wordAt(slot));
      }
    }
  });
  return { terms, frequencies, surfaces, length };
}

/** The words of each field of the analysis under way, reused. */
const fieldWords: Words[] = [];

/** A query's distinct terms in order of appearance, with the folded words they came from. */
export interface AnalyzedQuery {
  terms: string[];
  words: string[];
  /**
   * How much each term counts (its BM25 contribution is multiplied by it); absent: 1 each. An
   * expanded query (query/feedback.ts) weights the words it added below the user's own.
   */
  weights?: number[];
  /**
   * Only the first `selecting` terms select documents; the others add to the scores of documents
   * a selecting term matched and find none of their own. Absent: every term selects.
   */
  selecting?: number;
}

export function analyzeQuery(query: string): AnalyzedQuery {
  const terms: string[] = [];
  const words: string[] = [];
  const seen = new Set<string>();
  boundTermMemory();
  for (const word of tokenize(query)) {
    const term = termOf(word).text;
    if (seen.has(term)) continue;
    seen.add(term);
    terms.push(term);
    words.push(word);
  }
  return { terms, words };
}
