import { afterAll, expect, it } from 'vitest';
import { prepareDocuments } from '../query/document-validation.js';
import { parseFilter } from '../query/filter-parser.js';
import { tempDir } from '../test-fixtures.js';
import { filterLabels } from './document-reads.js';
import { DocumentStore, STATEMENT_CACHE } from './document-store.js';
import { compileFilter } from './filter-sql.js';

const temp = tempDir();
afterAll(() => temp.remove());

it('keeps at most STATEMENT_CACHE statements, however many distinct filters run', () => {
  const store = new DocumentStore(`${temp.dir}/statements.sqlite`);
  try {
    const docs = prepareDocuments(Array.from({ length: 20 }, (_, i) => ({ id: `d${i}`, content: { n: i } })));
    store.write(
      '',
      docs,
      docs.map(() => new Float32Array(4)),
      -1,
    );
    const nsId = store.namespaceId('')!;
    for (let i = 0; i < 1000; i++) {
      // A distinct shape each time: a different number of OR-ed conditions.
      const filter = `${Array.from({ length: (i % 50) + 1 }, () => `n = ${i % 20}`).join(' OR ')} OR f${i} = 1`;
      expect(filterLabels(store, nsId, compileFilter(parseFilter(filter), 'd'))).toHaveLength(1);
      expect(store.cachedStatements).toBeLessThanOrEqual(STATEMENT_CACHE.maxStatements);
    }
    // The store's own statements still work after being evicted.
    expect(store.getMeta('nothing')).toBeUndefined();
    expect(store.totalCount()).toBe(20);
  } finally {
    store.close();
  }
});
