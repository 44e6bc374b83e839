import { describe, expect, it } from 'vitest';
import {
  analyzeFields,
  analyzeQuery,
  MAX_CACHED_STEMS,
  SHORT_FIELD_WEIGHT,
  SHORT_FIELD_WORDS,
  stemToken,
  termMemorySize,
} from './analyzer.js';
import { tokenize } from './text-tokens.js';
import { WordMemory } from './word-memory.js';

/** The definition of an analysis: the fields' tokens counted by word, words grouped by stem in order of appearance. */
function reference(fields: string[]): { terms: string[]; frequencies: number[]; surfaces: string[]; length: number } {
  const tokenized = fields.map(tokenize);
  const longest = Math.max(0, ...tokenized.map((tokens) => tokens.length));
  const words = new Map<string, number>();
  let length = 0;
  for (const tokens of tokenized) {
    const weight = tokens.length <= SHORT_FIELD_WORDS && tokens.length < longest ? SHORT_FIELD_WEIGHT : 1;
    length += weight * tokens.length;
    for (const token of tokens) words.set(token, (words.get(token) ?? 0) + weight);
  }
  const out = { terms: [] as string[], frequencies: [] as number[], surfaces: [] as string[], length };
  for (const [word, count] of words) {
    const term = stemToken(word);
    const at = out.terms.indexOf(term);
    if (at >= 0) {
      out.frequencies[at] += count;
    } else {
      out.terms.push(term);
      out.frequencies.push(count);
      out.surfaces.push(word);
    }
  }
  return out;
}

describe('analyzer', () => {
  it('analyzes a document into distinct terms: words with one stem share a term and add up', () => {
    const analysis = analyzeFields(['Studies', 'a study of studies about war and wars']);
    const texts = analysis.terms.map((term) => term.text);
    expect(new Set(texts).size).toBe(texts.length);
    const studi = texts.indexOf('studi');
    // The short first field counts twice (see SHORT_FIELD_WEIGHT); the body's two forms once each.
    expect(analysis.frequencies[studi]).toBe(4);
    expect(analysis.surfaces[studi]).toBe('studies');
    expect(analysis.frequencies[texts.indexOf('war')]).toBe(2);
    expect(analyzeFields(['study']).terms[0]).toBe(analysis.terms[studi]);
  });

  it('analyzes as its definition: mixed fields, ASCII or not, words repeated across fields', () => {
    const documents = [
      ['Studies', 'a study of studies about war and wars'],
      ['Ångström units', 'Measured in ångströms: 1 Å = 0.1 nm; STUDIES of Σίσυφος and ΣΊΣΥΦΟΣ.'],
      ['TNF-α and β-catenin', 'TNF-α signalling via β-catenin; tnf TNF Tnf, x² and x2, ﬁnance finance'],
      ['', 'only a body here', ''],
      ['naïve Café', 'naive cafe NAÏVE CAFÉ'],
    ];
    for (const fields of documents) {
      const analysis = analyzeFields(fields);
      expect({ ...analysis, terms: analysis.terms.map((term) => term.text) }).toEqual(reference(fields));
    }
  });

  it('never splits one stem into two terms when its word memory fills up during an analysis', () => {
    // Numbers are kept as they are (no stemming), so this fills the memory quickly: one word short
    // of full, so that the first new word below fills it and the second finds it full. Both words
    // are new to this process and share one stem.
    for (let i = 0; termMemorySize() < MAX_CACHED_STEMS - 1; i++) stemToken(`${i}`);
    expect(termMemorySize()).toBe(MAX_CACHED_STEMS - 1);
    const analysis = analyzeFields(['quibbling quibbled zebras zebra']);
    const texts = analysis.terms.map((term) => term.text);
    expect(texts).toEqual(['quibbl', 'zebra']);
    expect(analysis.frequencies).toEqual([2, 2]);
    expect(termMemorySize()).toBeLessThan(MAX_CACHED_STEMS + 4);
    expect(analyzeQuery('quibbled quibbling zebra').terms).toEqual(['quibbl', 'zebra']);
  });
});

describe('word memory', () => {
  it('finds a word by its text or inside an ASCII text, folded, and keeps words through growth', () => {
    const memory = new WordMemory<number>();
    const words = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}x`);
    for (const [i, word] of words.entries()) memory.insert(word, i);
    expect(memory.size).toBe(5000);
    words.forEach((word, i) => {
      const slot = memory.find(word);
      expect(memory.valueAt(slot)).toBe(i);
      expect(memory.wordAt(slot)).toBe(word);
    });
    const text = `(W${(1234).toString(36).toUpperCase()}X) w9`;
    expect(memory.valueAt(memory.findIn(text, 1, text.indexOf(')')))).toBe(1234);
    expect(memory.findIn(text, 1, text.indexOf(')') - 1)).toBe(-1);
    expect(memory.findIn(text, text.length - 2, text.length)).toBe(-1);
    expect(memory.find('nothing')).toBe(-1);
    memory.clear();
    expect(memory.size).toBe(0);
    expect(memory.find(words[0])).toBe(-1);
  });
});
