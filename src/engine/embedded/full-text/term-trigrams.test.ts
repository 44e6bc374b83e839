import { describe, expect, it } from 'vitest';
import { termTrigrams } from '../../query/analyzer.js';
import { TermTrigrams } from './term-trigrams.js';

describe('term trigrams', () => {
  it('counts each term’s trigrams per document holding it, shared trigrams across terms', () => {
    const trigrams = new TermTrigrams();
    trigrams.addTerm(termTrigrams('war')); // #wa war ar#
    trigrams.addTerm(termTrigrams('ward')); // #wa war ard rd#
    trigrams.count(0, 1);
    trigrams.count(1, 1);
    trigrams.count(1, 1);
    expect(trigrams.frequency('#wa')).toBe(3);
    expect(trigrams.frequency('ar#')).toBe(1);
    expect(trigrams.frequency('rd#')).toBe(2);
    expect(trigrams.frequency('zzz')).toBe(0);
    expect(Array.from(trigrams.frequenciesOf(1, new Int32Array(1)).subarray(0, 4))).toEqual([3, 3, 2, 2]);
    trigrams.count(1, -1);
    expect(Array.from(trigrams.frequenciesOf(0, new Int32Array(8)).subarray(0, 3))).toEqual([2, 2, 1]);
  });

  it('keeps every term’s trigrams apart through growth', () => {
    const trigrams = new TermTrigrams();
    const terms = Array.from({ length: 5000 }, (_, i) => `term${i}`);
    for (const term of terms) trigrams.addTerm(termTrigrams(term));
    for (let id = 0; id < terms.length; id += 7) trigrams.count(id, 1);
    // "42#" ends the terms whose number ends in 42; only those counted (every 7th) count.
    expect(trigrams.frequency('42#')).toBe(terms.filter((t, id) => id % 7 === 0 && t.endsWith('42')).length);
    // term4998 (= 7 × 714, counted): #te ter erm rm4 m49 499 998 98# — each as often as the counted terms share it.
    const counted = terms.filter((_, id) => id % 7 === 0).map(termTrigrams);
    const expected = termTrigrams('term4998').map((gram) => counted.filter((grams) => grams.includes(gram)).length);
    expect(Array.from(trigrams.frequenciesOf(4998, new Int32Array(0)).subarray(0, expected.length))).toEqual(expected);
  });
});
