import { describe, expect, test } from 'vitest';
import type { BeirDocument, BeirQuery } from './beir-dataset.js';
import { fts5Baseline, fts5Query } from './fts5-baseline.js';

const documents: BeirDocument[] = [
  { id: 'common', title: 'Ocean', text: 'The ocean is wide. The ocean is deep.' },
  { id: 'rare', title: 'Reef', text: 'The ocean hides a coral reef.' },
  { id: 'other', title: 'Mountain', text: 'The mountain is high and the air is thin.' },
  { id: 'more', title: 'Sea', text: 'The ocean and the sea meet at the shore.' },
];

const query = (id: string, text: string, judged: Record<string, number>): BeirQuery => ({
  id,
  text,
  judgments: new Map(Object.entries(judged)),
});

describe('fts5Baseline', () => {
  test('ranks the document with the rarer query word first; the metrics follow from that ranking', () => {
    // "coral" is in one document, "ocean" in three: BM25 puts the coral document first.
    const metrics = fts5Baseline(documents, [query('q', 'ocean coral', { rare: 1 })], 100);
    expect(metrics).toEqual({ ndcgAt10: 1, recallAt100: 1, mrrAt10: 1 });
  });

  test('a relevant document ranked second, one never matched, and a query without words', () => {
    const second = fts5Baseline(documents, [query('q', 'coral ocean', { common: 1 })], 100);
    // "common" holds "ocean" twice in a short text, so it comes right after the coral document.
    expect(second.mrrAt10).toBe(0.5);
    expect(second.ndcgAt10).toBeCloseTo(1 / Math.log2(3), 10);

    const unmatched = fts5Baseline(documents, [query('q', 'mountain', { rare: 1 })], 100);
    expect(unmatched).toEqual({ ndcgAt10: 0, recallAt100: 0, mrrAt10: 0 });

    const averaged = fts5Baseline(documents, [query('a', 'coral', { rare: 1 }), query('b', '?? !!', { rare: 1 })], 100);
    expect(averaged).toEqual({ ndcgAt10: 0.5, recallAt100: 0.5, mrrAt10: 0.5 });
  });

  test('topK cuts the run: Recall@100 counts only what was returned', () => {
    const metrics = fts5Baseline(documents, [query('q', 'ocean', { common: 1, rare: 1, more: 1 })], 1);
    expect(metrics.recallAt100).toBeCloseTo(1 / 3, 10);
  });

  test('the porter tokenizer matches word forms', () => {
    expect(fts5Baseline(documents, [query('q', 'reefs', { rare: 1 })], 10).mrrAt10).toBe(1);
  });
});

describe('fts5Query', () => {
  test('each distinct word quoted, case folded, OR-ed; operators and punctuation are not syntax', () => {
    expect(fts5Query('Coral AND "reef" coral NEAR(x) body:y -z')).toBe(
      '"coral" OR "and" OR "reef" OR "near" OR "x" OR "body" OR "y" OR "z"',
    );
    expect(fts5Query('Ünïcode 42')).toBe('"ünïcode" OR "42"');
    expect(fts5Query(' ?! ')).toBe('');
  });
});
