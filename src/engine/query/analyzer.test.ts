import { describe, expect, it } from 'vitest';
import { analyzeFields, analyzeQuery, MAX_CACHED_STEMS, stemToken, termMemorySize } from './analyzer.js';

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
