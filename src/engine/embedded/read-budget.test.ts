import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IndexEngine, ReadBudget, SearchEngine } from '../contract.js';
import { NO_LIMIT, searchRequest, tempDir, testEngine } from '../test-fixtures.js';

const METADATA_CHARS = 10_000;

/** Records what reads reserve; refuses once `refuseAbove` bytes would be held. */
function recordingBudget(refuseAbove = Number.POSITIVE_INFINITY): ReadBudget & { calls: number[] } {
  const calls: number[] = [];
  return {
    calls,
    reserve(bytes) {
      if (calls.reduce((sum, b) => sum + b, 0) + bytes > refuseAbove) throw new Error('refused');
      calls.push(bytes);
    },
  };
}

describe('reads tell their budget what their documents will cost', () => {
  let temp: ReturnType<typeof tempDir>;
  let engine: SearchEngine;
  let index: IndexEngine;

  beforeEach(async () => {
    temp = tempDir();
    engine = testEngine(temp.dir);
    index = await engine.open('idx');
    const docs = Array.from({ length: 10 }, (_, i) => ({
      id: `doc-${i}`,
      content: { text: `apple number ${i}` },
      metadata: { blob: 'm'.repeat(METADATA_CHARS) },
    }));
    await index.upsert('', docs, NO_LIMIT);
  });
  afterEach(async () => {
    await engine.close();
    temp.remove();
  });

  it('range, fetch and search reserve four times the stored size of what they return', async () => {
    const stored = 10 * METADATA_CHARS;
    const range = recordingBudget();
    const page = await index.range('', {
      cursor: '',
      limit: 100,
      includeData: false,
      includeMetadata: true,
      budget: range,
    });
    expect(page.documents).toHaveLength(10);
    expect(range.calls).toHaveLength(1);
    expect(range.calls[0]).toBeGreaterThanOrEqual(4 * stored);
    expect(range.calls[0]).toBeLessThan(4 * stored * 1.05);

    const fetch = recordingBudget();
    await index.fetch(
      '',
      { ids: ['doc-1', 'doc-2', 'missing'] },
      { includeData: true, includeMetadata: true, budget: fetch },
    );
    expect(fetch.calls[0]).toBeGreaterThanOrEqual(4 * 2 * METADATA_CHARS);
    expect(fetch.calls[0]).toBeLessThan(4 * 2 * METADATA_CHARS * 1.05);

    const search = recordingBudget();
    const hits = await index.search('', searchRequest('apple', { topK: 3, budget: search }));
    expect(hits.hits).toHaveLength(3);
    expect(search.calls.reduce((sum, b) => sum + b, 0)).toBeGreaterThanOrEqual(4 * 3 * METADATA_CHARS);
  });

  it('a fetch that names an id several times reserves it as often as the answer repeats it', async () => {
    const budget = recordingBudget();
    const answer = await index.fetch(
      '',
      { ids: ['doc-1', 'doc-1', 'doc-1', 'missing'] },
      { includeData: false, includeMetadata: true, budget },
    );
    expect(answer.filter((doc) => doc !== null)).toHaveLength(3);
    expect(budget.calls[0]).toBeGreaterThanOrEqual(4 * 3 * METADATA_CHARS);
    expect(budget.calls[0]).toBeLessThan(4 * 3 * METADATA_CHARS * 1.05);
  });

  it('reads without data or metadata reserve nothing', async () => {
    const budget = recordingBudget();
    await index.range('', { cursor: '', limit: 100, includeData: false, includeMetadata: false, budget });
    await index.fetch('', { ids: ['doc-1'] }, { includeData: false, includeMetadata: false, budget });
    await index.search('', searchRequest('apple', { includeData: false, includeMetadata: false, budget }));
    expect(budget.calls).toEqual([]);
  });

  it("a budget's refusal fails the read", async () => {
    const budget = recordingBudget(1000);
    await expect(
      index.range('', { cursor: '', limit: 100, includeData: false, includeMetadata: true, budget }),
    ).rejects.toThrow('refused');
  });
});
