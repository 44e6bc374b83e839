import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, type TestStore } from '../../../test/helpers/store.js';
import { existingDocuments, removeDocuments } from './index-records.js';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe.skipIf(!onPostgres)('index records (PostgreSQL)', () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await createTestStore();
  });
  afterAll(async () => store.cleanup());

  it('finds and deletes more ids than PostgreSQL takes parameters (65,535) in one statement', async () => {
    const { db } = store.store;
    await sql`
      INSERT INTO index_documents (index_id, namespace, id, seq, content, metadata, vector)
      SELECT 'idx', 'ns', 'd' || n, n, '{"t":"x"}', NULL, '\\x00000000'::bytea FROM generate_series(1, 70000) AS n`.execute(
      db,
    );
    const ids = Array.from({ length: 70_001 }, (_, i) => `d${i + 1}`); // the last one does not exist
    const found = await db.transaction().execute((trx) => existingDocuments(trx, 'idx', 'ns', ids));
    expect(found.size).toBe(70_000);
    const removed = await db.transaction().execute((trx) => removeDocuments(trx, 'idx', 'ns', ids));
    expect(removed.size).toBe(70_000);
    const left = await db.selectFrom('index_documents').select(db.fn.countAll<number>().as('n')).executeTakeFirst();
    expect(Number(left?.n)).toBe(0);
  });
});
