import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, type TestStore } from '../../test/helpers/store.js';
import { openStore, type Store } from './database.js';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/**
 * The statement every data-plane request runs is prepared once per connection; where the server
 * loses or refuses it, the node goes on unprepared instead of failing every request.
 */
describe.skipIf(!onPostgres)('prepared statements (PostgreSQL)', () => {
  let testStore: TestStore;
  const opened: Store[] = [];
  const SELECT = 'select * from probe_rows where id = $1';
  beforeAll(async () => {
    testStore = await createTestStore();
    await sql`create table probe_rows (id integer primary key, label text not null)`.execute(testStore.store.db);
    await sql`insert into probe_rows values (1, 'one'), (2, 'two')`.execute(testStore.store.db);
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });
  afterAll(async () => {
    await testStore.cleanup();
  });

  /** One connection, so that what the test does on it happens to the prepared statement's. */
  function open() {
    const warnings: { obj: object; msg?: string }[] = [];
    const store = openStore({ dataDir: testStore.dataDir, databaseUrl: testStore.databaseUrl, poolSize: 1 });
    store.useLogger?.({ warn: (obj, msg) => warnings.push({ obj, msg }) });
    opened.push(store);
    return { store, warnings, prepared: store.prepared! };
  }

  const preparedHere = async (store: Store) =>
    (await sql<{ name: string }>`select name from pg_prepared_statements`.execute(store.db)).rows.map(
      (row) => row.name,
    );

  it('runs a statement by name, prepared once on the connection', async () => {
    const { store, warnings, prepared } = open();
    expect(await prepared('probe_by_id', SELECT, [1])).toEqual([{ id: 1, label: 'one' }]);
    expect(await prepared('probe_by_id', SELECT, [2])).toEqual([{ id: 2, label: 'two' }]);
    expect(await prepared('probe_by_id', SELECT, [3])).toEqual([]);
    expect(await preparedHere(store)).toEqual(['probe_by_id']);
    expect(warnings).toEqual([]);
  });

  it('a statement the server no longer holds (a pooler that switched connections) is run unprepared from then on', async () => {
    const { store, warnings, prepared } = open();
    await prepared('probe_by_id', SELECT, [1]);
    await sql`deallocate all`.execute(store.db);
    expect(await prepared('probe_by_id', SELECT, [2])).toEqual([{ id: 2, label: 'two' }]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0].msg).toBe('prepared statements fail here; running them unprepared');
    expect(warnings[0].obj).toEqual({ err: expect.objectContaining({ code: '26000' }) });
    expect(await prepared('probe_by_id', SELECT, [1])).toEqual([{ id: 1, label: 'one' }]);
    expect(await preparedHere(store)).toEqual([]);
    expect(warnings).toHaveLength(1);
  });

  it('a column added under a running node (a newer node migrating) does not break its statement', async () => {
    const { warnings, prepared } = open();
    await prepared('probe_by_id', SELECT, [1]);
    await sql`alter table probe_rows add column extra text`.execute(testStore.store.db);
    try {
      expect(await prepared('probe_by_id', SELECT, [1])).toEqual([{ id: 1, label: 'one', extra: null }]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0].obj).toEqual({ err: expect.objectContaining({ code: '0A000' }) });
    } finally {
      await sql`alter table probe_rows drop column extra`.execute(testStore.store.db);
    }
  });

  it('other errors are the caller’s, and statements stay prepared', async () => {
    const { store, warnings, prepared } = open();
    await expect(prepared('probe_bad', 'select * from no_such_table where id = $1', [1])).rejects.toMatchObject({
      code: '42P01',
    });
    expect(await prepared('probe_by_id', SELECT, [2])).toEqual([{ id: 2, label: 'two' }]);
    expect(await preparedHere(store)).toEqual(['probe_by_id']);
    expect(warnings).toEqual([]);
  });
});
