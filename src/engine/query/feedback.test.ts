import { describe, expect, it } from 'vitest';
import { analyzeFields, analyzeQuery } from './analyzer.js';
import { expandQuery, FEEDBACK_TERMS, FEEDBACK_WEIGHT } from './feedback.js';

const doc = (text: string, score: number) => ({ analysis: analyzeFields([text]), score });

describe('query expansion from feedback', () => {
  it("adds the feedback's most probable terms after the user's, which alone select documents", () => {
    const query = analyzeQuery('heart attack');
    const expanded = expandQuery(query, [
      doc('heart attack myocardial infarction myocardial', 8),
      doc('myocardial infarction of the heart', 7.5),
    ]);
    expect(expanded.terms.slice(0, 2)).toEqual(['heart', 'attack']);
    expect(expanded.selecting).toBe(2);
    expect(expanded.terms).toContain('myocardi');
    expect(expanded.terms).toContain('infarct');
    // Stop words of the feedback are never added.
    expect(expanded.words).not.toContain('of');
    expect(expanded.words).not.toContain('the');
    // The user's words keep 1 plus what the feedback adds to them; added terms get FEEDBACK_WEIGHT of the whole.
    const weights = new Map(expanded.terms.map((term, i) => [term, expanded.weights![i]]));
    expect(weights.get('heart')).toBeGreaterThan(1);
    expect(weights.get('myocardi')).toBeGreaterThan(weights.get('infarct')!);
    const total = expanded.weights!.reduce((sum, weight) => sum + weight, 0);
    expect((total - 2) / total).toBeCloseTo(FEEDBACK_WEIGHT, 9);
  });

  it('weights each document by exp(score): a clear best match decides, near ties share', () => {
    const query = analyzeQuery('cell');
    const clear = expandQuery(query, [doc('cell membrane', 20), doc('cell nucleus', 10)]);
    const weight = (expanded: typeof clear, term: string) => expanded.weights![expanded.terms.indexOf(term)];
    expect(weight(clear, 'membran') / weight(clear, 'nucleus')).toBeCloseTo(Math.exp(10), 3);
    const tied = expandQuery(query, [doc('cell membrane', 10), doc('cell nucleus', 10)]);
    expect(weight(tied, 'membran')).toBeCloseTo(weight(tied, 'nucleus'), 12);
  });

  it('adds at most FEEDBACK_TERMS terms, and equal feedback gives an equal query', () => {
    const words = Array.from({ length: 60 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${i}`);
    const feedback = [doc(words.join(' '), 3), doc(words.slice(0, 30).join(' '), 2)];
    const expanded = expandQuery(analyzeQuery('topic'), feedback);
    expect(expanded.terms.length - 1).toBe(FEEDBACK_TERMS);
    expect(expandQuery(analyzeQuery('topic'), feedback)).toEqual(expanded);
  });

  it('leaves a query of stop words alone, and a query without feedback', () => {
    const stops = analyzeQuery('the who');
    expect(expandQuery(stops, [doc('the who played here', 5)])).toBe(stops);
    const query = analyzeQuery('regatta');
    expect(expandQuery(query, [])).toBe(query);
  });
});
