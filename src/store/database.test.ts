import { sql } from 'kysely';
import { afterEach, expect, test } from 'vitest';
import { tempDir } from '../engine/test-fixtures.js';
import { openStore } from './database.js';

const removals: Array<() => void> = [];
afterEach(() => {
  for (const remove of removals.splice(0)) remove();
});

function storeInTempDir() {
  const { dir, remove } = tempDir();
  removals.push(remove);
  return openStore({ dataDir: dir });
}

test('closing a SQLite store that never ran a query closes its file', async () => {
  const store = storeInTempDir();
  await store.close();
  // The first token reads the file (PRAGMA data_version): a closed connection refuses it.
  expect(() => store.changeToken()).toThrow(/not open/);
});

test('closing a SQLite store after queries closes it once, without error', async () => {
  const store = storeInTempDir();
  const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(store.db);
  expect(rows).toEqual([{ one: 1 }]);
  await store.close();
  expect(() => store.changeToken()).toThrow(/not open/);
});
