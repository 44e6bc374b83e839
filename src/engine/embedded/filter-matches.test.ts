import { afterAll, expect, it } from 'vitest';
import { prepareDocuments } from '../query/document-validation.js';
import { parseFilter } from '../query/filter-parser.js';
import { tempDir } from '../test-fixtures.js';
import { filterLabels } from './document-reads.js';
import { DocumentStore } from './document-store.js';
import { FilterMatches } from './filter-matches.js';
import { compileFilter } from './filter-sql.js';

const temp = tempDir();
afterAll(() => temp.remove());

it('keeps its match sets within a bound in labels, and answers exactly beyond it', () => {
  const store = new DocumentStore(`${temp.dir}/matches.sqlite`);
  try {
    const write = (from: number, to: number) => {
      const docs = prepareDocuments(
        Array.from({ length: to - from }, (_, i) => ({ id: `d${from + i}`, content: { n: from + i } })),
      );
      return store.write(
        '',
        docs,
        docs.map(() => new Float32Array(4)),
        -1,
      );
    };
    write(0, 100);
    const nsId = store.namespaceId('')!;
    const matches = new FilterMatches(store, 8, 150);
    const exact = (source: string) => new Set(filterLabels(store, nsId, compileFilter(parseFilter(source), 'd')));
    const get = (source: string) => matches.get(nsId, source, compileFilter(parseFilter(source), 'd'));

    for (let i = 0; i < 20; i++) {
      // 60 documents each, a different shape each time.
      const source = `n >= ${i} AND n < ${i + 60}`;
      expect(get(source)).toEqual(exact(source));
      expect(matches.cachedLabels).toBeLessThanOrEqual(150);
    }
    // Broader than the whole bound: answered, not kept.
    expect(get('n >= 0')).toEqual(exact('n >= 0'));
    expect(matches.cachedLabels).toBeLessThanOrEqual(150);

    // Writes that add matching documents keep the sets exact and the bound held.
    const kept = 'n >= 19 AND n < 79';
    const added = write(100, 200);
    matches.changed(
      nsId,
      added.added.map((entry) => entry.label),
      added.removed,
    );
    expect(matches.cachedLabels).toBeLessThanOrEqual(150);
    expect(get(kept)).toEqual(exact(kept));
  } finally {
    store.close();
  }
});
