import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, type TestStore } from '../../../test/helpers/store.js';
import { openStore, type Store } from '../../store/database.js';
import { withHeartbeat } from './transaction-heartbeat.js';

describe.skipIf(!process.env.TEST_DATABASE_URL)('withHeartbeat (PostgreSQL)', () => {
  let testStore: TestStore;
  let node: Store;
  beforeAll(async () => {
    testStore = await createTestStore();
    // Sessions idle in a transaction for 300 ms are ended by the server.
    node = openStore({ dataDir: testStore.dataDir, databaseUrl: testStore.databaseUrl, idleTransactionTimeoutMs: 300 });
    node.useLogger?.({ warn() {} });
    await sql`create table beat_probe (n int)`.execute(testStore.store.db);
  });
  afterAll(async () => {
    await node.close();
    await testStore.cleanup();
  });

  it('keeps a waiting transaction alive without beginning its snapshot', async () => {
    const seen = await node.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute((trx) =>
        withHeartbeat(
          trx,
          async () => {
            // Four timeouts without a statement of its own, meanwhile another node commits.
            await new Promise((resolve) => setTimeout(resolve, 600));
            await sql`insert into beat_probe values (1)`.execute(testStore.store.db);
            await new Promise((resolve) => setTimeout(resolve, 600));
            // The snapshot begins here, at the first query: the commit made meanwhile is in it.
            const { rows } = await sql<{ n: number }>`select count(*)::int as n from beat_probe`.execute(trx);
            return rows[0].n;
          },
          50,
        ),
      );
    expect(seen).toBe(1);
  });
});
