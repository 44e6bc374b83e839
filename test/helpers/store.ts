import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrateToLatest, openStore, type Store } from '../../src/store/database.js';

export interface TestStore {
  store: Store;
  dataDir: string;
  /** Set when the suite runs against PostgreSQL (TEST_DATABASE_URL). */
  databaseUrl?: string;
  cleanup(): Promise<void>;
}

/**
 * A fresh, migrated store: a SQLite file in a temp dir, or, when TEST_DATABASE_URL is set,
 * a new PostgreSQL schema of its own (dropped at cleanup).
 */
export async function createTestStore(): Promise<TestStore> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'searchplane-test-'));
  const baseUrl = process.env.TEST_DATABASE_URL;
  let databaseUrl: string | undefined;
  let schema: string | undefined;
  if (baseUrl) {
    schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    const url = new URL(baseUrl);
    url.searchParams.set('options', `-c search_path=${schema}`);
    databaseUrl = url.toString();
  }
  const store = openStore({ dataDir, databaseUrl });
  await migrateToLatest(store);
  return {
    store,
    dataDir,
    databaseUrl,
    async cleanup() {
      await store.close();
      if (baseUrl && schema) {
        const admin = new pg.Client({ connectionString: baseUrl });
        await admin.connect();
        await admin.query(`DROP SCHEMA ${schema} CASCADE`);
        await admin.end();
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
