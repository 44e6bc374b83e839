import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, type TestStore } from '../../../test/helpers/store.js';
import { isUniqueViolation } from '../database.js';
import { insertAccount } from './account.repository.js';
import { findSearchIndexById, insertSearchIndex, type SearchIndexRow } from './search-index.repository.js';

/** A row whose every column holds a value no other column holds, so a swapped pair shows. */
function distinctRow(id: string, name: string): SearchIndexRow {
  return {
    id,
    customer_id: 'owner@example.com',
    name,
    endpoint: `endpoint-${id}`,
    type: 'payg',
    region: 'eu-west-1',
    integration_email: 'integration@example.com',
    token: `token-${id}`,
    read_only_token: `read-only-${id}`,
    max_vector_count: 11,
    max_monthly_reranks: 12,
    max_daily_updates: 13,
    max_daily_queries: 14,
    max_monthly_bandwidth: 15,
    max_writes_per_second: 16,
    max_query_per_second: 17,
    max_reads_per_request: 18,
    max_writes_per_request: 19,
    creation_time: 1_790_000_000,
    input_enrichment_enabled: 0,
    previous_token: `previous-${id}`,
    previous_read_only_token: `previous-read-only-${id}`,
    previous_tokens_expire_at: 1_790_000_020,
  };
}

describe('insertSearchIndex', () => {
  let testStore: TestStore;
  beforeAll(async () => {
    testStore = await createTestStore();
    await insertAccount(testStore.store.db, { email: 'owner@example.com', api_key_hash: 'x', created_at: 1 });
  });
  afterAll(async () => {
    await testStore.cleanup();
  });

  it('stores every column where it belongs, whatever the order of the row’s keys', async () => {
    const first = distinctRow('a1', 'first');
    const reversed = Object.fromEntries(Object.entries(first).reverse()) as unknown as SearchIndexRow;
    await insertSearchIndex(testStore.store.db, reversed);
    const second = distinctRow('a2', 'second');
    await insertSearchIndex(testStore.store.db, second);

    expect(await findSearchIndexById(testStore.store.db, 'a1')).toEqual(first);
    expect(await findSearchIndexById(testStore.store.db, 'a2')).toEqual(second);
  });

  it('inserts inside a transaction, which commits or rolls back with it', async () => {
    await testStore.store.db
      .transaction()
      .execute((trx) => insertSearchIndex(trx, distinctRow('t1', 'in-transaction')));
    await expect(
      testStore.store.db.transaction().execute(async (trx) => {
        await insertSearchIndex(trx, distinctRow('t2', 'rolled-back'));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');

    expect(await findSearchIndexById(testStore.store.db, 't1')).toEqual(distinctRow('t1', 'in-transaction'));
    expect(await findSearchIndexById(testStore.store.db, 't2')).toBeUndefined();
  });

  it('refuses a second index of the same name for one account as a unique violation', async () => {
    await insertSearchIndex(testStore.store.db, distinctRow('u1', 'taken'));
    const error = await insertSearchIndex(testStore.store.db, distinctRow('u2', 'taken')).catch((caught) => caught);
    expect(isUniqueViolation(error)).toBe(true);
    expect(await findSearchIndexById(testStore.store.db, 'u2')).toBeUndefined();
  });
});
