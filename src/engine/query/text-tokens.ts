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
  const words = scanWords(text, scratch);
  const tokens: string[] = [];
  const { bounds, strings } = words;
  // Positions in the text are positions in its lowercase form only when it is all ASCII.
  const folded = words.ascii ? text.toLowerCase() : text;
  for (let i = 0; i < words.count * 2; i += 2) {
    if (bounds[i] < 0) tokens.push(strings[bounds[i + 1]]);
    else if (words.ascii) tokens.push(folded.slice(bounds[i], bounds[i + 1]));
    else tokens.push(text.slice(bounds[i], bounds[i + 1]).toLowerCase());
  }
  return tokens;
}

/**
 * The words of a text in the order they occur, each either in place (`bounds` holds its start and
 * end in the text: ASCII letters and digits, to be lowercased) or a token of its own (`bounds`
 * holds -1 and its index in `strings`).
 */
export interface Words {
  bounds: Int32Array;
  count: number;
  strings: string[];
  /** Whether the text is all ASCII. */
  ascii: boolean;
}

/** Words of {@link tokenize}, reused. */
const scratch: Words = { bounds: new Int32Array(1024), count: 0, strings: [], ascii: true };

/**
 * Splits `text` into the tokens of {@link tokenize}, into `words` (emptied first; returned). Unicode
 * normalization and the Unicode-aware expression are slow, and most text is ASCII with a few other
 * characters here and there. So the text is cut at ASCII characters that are neither letters nor
 * digits nor case-ignorable (`' . : ^ \``): the folding steps never reach across such a
 * character (decompositions and marks are per character, and the one context of lowercasing, a
 * final sigma, looks past case-ignorable characters only), and it is never part of a token. A
 * piece all ASCII is split in place (its letters and digits are `[\p{L}\p{N}]` there); another is
 * folded and split as a whole.
 */
export function scanWords(text: string, words: Words): Words {
  words.count = 0;
  words.strings.length = 0;
  words.ascii = true;
  let piece = 0;
  let pieceWords = 0;
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 32;
    const lower = code | 0x20;
    if ((lower >= 97 && lower <= 122) || (code >= 48 && code <= 57)) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0) {
      addWord(words, start, i);
      start = -1;
    }
    if (code > 127) {
      // Not ASCII: the piece is folded and split as a whole, from its start to its end.
      words.ascii = false;
      let end = i + 1;
      while (end < text.length && !cutsPieces(text.charCodeAt(end))) end++;
      words.count = pieceWords;
      for (const token of unicodeTokens(text.slice(piece, end))) {
        addWord(words, -1, words.strings.length);
        words.strings.push(token);
      }
      i = end - 1;
    } else if (cutsPieces(code)) {
      piece = i + 1;
      pieceWords = words.count;
    }
  }
  return words;
}

/** Whether an ASCII character ends a piece of text (see {@link scanWords}); any other ends nothing. */
function cutsPieces(code: number): boolean {
  if (code > 127) return false;
  const lower = code | 0x20;
  if ((lower >= 97 && lower <= 122) || (code >= 48 && code <= 57)) return false;
  return code !== 0x27 && code !== 0x2e && code !== 0x3a && code !== 0x5e && code !== 0x60;
}

function addWord(words: Words, start: number, end: number): void {
  const at = words.count * 2;
  if (at + 2 > words.bounds.length) {
    const grown = new Int32Array(words.bounds.length * 2);
    grown.set(words.bounds);
    words.bounds = grown;
  }
  words.bounds[at] = start;
  words.bounds[at + 1] = end;
  words.count++;
}

/** {@link tokenize} of text with characters beyond ASCII. */
function unicodeTokens(text: string): string[] {
  return text.normalize('NFKD').replace(DIACRITICS, '').toLowerCase().match(TOKEN) ?? [];
}

/**
 * The text fields of a document joined by {@link FIELD_SEPARATOR}: what gets embedded, full-text
 * indexed and reranked (see {@link textFields}).
 */
export function flattenText(value: Json): string {
  return textFields(value).join(FIELD_SEPARATOR);
}

/**
 * The text fields of a document, depth first: each string value as it is, and each number or
 * boolean after the name of the field holding it (`{"year": 2020}` gives "year 2020", an array's
 * items the array's name). A bare number says nothing without its name, and a user who looks for
 * it names both ("data 1"); a string carries its own meaning, so its field's name is left out
 * (a `title` field would otherwise put the word "title" in every document). Nulls are skipped.
 */
export function textFields(value: Json): string[] {
  const parts: string[] = [];
  collect(value, '', parts, true);
  return parts;
}

/** The string values of a document alone, depth first: what its text length limit counts. */
export function stringValues(value: Json): string[] {
  const parts: string[] = [];
  collect(value, '', parts, false);
  return parts;
}

function collect(value: Json, name: string, parts: string[], scalars: boolean): void {
  if (typeof value === 'string') {
    parts.push(value);
  } else if (typeof value === 'number' || typeof value === 'boolean') {
    if (scalars) parts.push(name ? `${name} ${value}` : String(value));
  } else if (Array.isArray(value)) {
    for (const item of value) collect(item, name, parts, scalars);
  } else if (value !== null && typeof value === 'object') {
    for (const key in value) collect(value[key], key, parts, scalars);
  }
}
