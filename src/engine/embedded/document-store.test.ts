import { readFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { prepareDocuments } from '../query/document-validation.js';
import { parseFilter } from '../query/filter-parser.js';
import { tempDir } from '../test-fixtures.js';
import { filterLabels } from './document-reads.js';
import { DocumentStore, STATEMENT_CACHE } from './document-store.js';
import { compileFilter } from './filter-sql.js';

const temp = tempDir();
afterAll(() => temp.remove());

/** Writes documents d0…d(n-1), each `{ n: i }`, to the default namespace. */
function writeNumbered(store: DocumentStore, n: number): void {
  const docs = prepareDocuments(Array.from({ length: n }, (_, i) => ({ id: `d${i}`, content: { n: i } })));
  store.write(
    '',
    docs,
    docs.map(() => new Float32Array(4)),
    -1,
  );
}

it('keeps at most STATEMENT_CACHE statements, however many distinct filters run', () => {
  const store = new DocumentStore(`${temp.dir}/statements.sqlite`);
  try {
    writeNumbered(store, 20);
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

it.runIf(process.platform === 'linux')('reads the index file without mapping it, filter scans too', () => {
  const file = `${temp.dir}/mapped.sqlite`;
  const store = new DocumentStore(file);
  const mapped = () =>
    readFileSync('/proc/self/maps', 'utf8')
      .split('\n')
      .some((line) => line.endsWith(` ${file}`)); // not its -shm, which WAL mode maps throughout
  try {
    writeNumbered(store, 50);
    store.db.pragma('wal_checkpoint(TRUNCATE)'); // the pages in the file itself, where a map would read them
    const nsId = store.namespaceId('')!;
    let mappedDuringScan = false;
    // Asked from inside the scan: SQLite calls the function for every row it reads.
    store.db.function('probe_map', () => {
      mappedDuringScan ||= mapped();
      return 1;
    });
    const labels = filterLabels(store, nsId, {
      sql: 'probe_map() = 1 AND json_extract(d.content, ?) < 10',
      params: ['$.n'],
    });
    expect(labels).toHaveLength(10);
    expect(mappedDuringScan).toBe(false);
    expect(store.all('SELECT id FROM documents WHERE label IN (1, 2, 3)')).toHaveLength(3);
    expect(mapped()).toBe(false);
  } finally {
    store.close();
  }
});
