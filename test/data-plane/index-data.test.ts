import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createTestApp, json } from '../helpers/app.js';
import { callIndex, createAccountWithIndex, makeDocs } from '../helpers/data-plane.js';

test('at start, data folders of indexes missing from the store are removed; others are kept', async () => {
  const ctx = await createTestApp();
  try {
    const { index: kept } = await createAccountWithIndex(ctx.app);
    const { index: orphan } = await createAccountWithIndex(ctx.app);
    for (const index of [kept, orphan]) {
      expect((await callIndex(ctx.app, index.endpoint, 'upsert-data', index.token, makeDocs(3))).statusCode).toBe(200);
    }
    await ctx.app.close();
    // As if the account had been deleted by the CLI while the server was down.
    await ctx.store.db.deleteFrom('search_indexes').where('id', '=', orphan.id).execute();
    const stray = path.join(ctx.dataDir, 'indexes', 'not-an-index');
    mkdirSync(stray, { recursive: true });

    const restarted = await buildApp({ config: ctx.config, store: ctx.store, logger: false });
    await restarted.ready();
    try {
      expect(existsSync(path.join(ctx.dataDir, 'indexes', orphan.id))).toBe(false);
      expect(existsSync(stray)).toBe(false);
      expect(existsSync(path.join(ctx.dataDir, 'indexes', kept.id))).toBe(true);
      const fetched = await callIndex(restarted, kept.endpoint, 'fetch', kept.token, ['doc-0', 'doc-2']);
      expect(json(fetched).result).toEqual([{ id: 'doc-0' }, { id: 'doc-2' }]);
    } finally {
      await restarted.close();
    }
  } finally {
    await ctx.cleanup();
  }
});

test('stats report the engine’s document count, pending count and size on disk', async () => {
  const ctx = await createTestApp();
  try {
    const { account, index } = await createAccountWithIndex(ctx.app);
    const empty = json(
      await ctx.app.inject({
        method: 'GET',
        url: `/v2/search/${index.id}/stats`,
        headers: { authorization: account.auth },
      }),
    );
    expect(empty.current_vector_count).toBe(0);
    await callIndex(ctx.app, index.endpoint, 'upsert-data/a', index.token, makeDocs(30));
    await callIndex(ctx.app, index.endpoint, 'upsert-data/b', index.token, makeDocs(12));
    const info = json(await callIndex(ctx.app, index.endpoint, 'info', index.token)).result;
    const stats = json(
      await ctx.app.inject({
        method: 'GET',
        url: `/v2/search/${index.id}/stats`,
        headers: { authorization: account.auth },
      }),
    );
    expect(stats.current_vector_count).toBe(42);
    expect(stats.pending_index_count).toBeLessThanOrEqual(42);
    expect(stats.storage_usage).toBeGreaterThan(0);
    expect(stats.storage_usage).toBe(info.indexSize);
  } finally {
    await ctx.close();
  }
});
