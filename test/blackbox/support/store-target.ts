import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** Where a black-box test's servers and CLI calls keep their state. */
export interface StoreTarget {
  /** `--data-dir` and, on PostgreSQL, `--database-url`, for `serve` and the CLI. */
  args: string[];
  dataDir: string;
  databaseUrl?: string;
  cleanup(): Promise<void>;
}

/** True when the suite runs against PostgreSQL. */
export const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/**
 * A temp data dir, plus (when TEST_DATABASE_URL is set) a fresh PostgreSQL schema of its own,
 * so the whole black-box suite also runs against PostgreSQL.
 */
export async function createStoreTarget(): Promise<StoreTarget> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'searchplane-blackbox-'));
  const baseUrl = process.env.TEST_DATABASE_URL;
  if (!baseUrl) {
    return {
      args: ['--data-dir', dataDir],
      dataDir,
      cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const schema = `bb_${randomBytes(6).toString('hex')}`;
  await adminQuery(baseUrl, `CREATE SCHEMA ${schema}`);
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const databaseUrl = url.toString();
  return {
    args: ['--data-dir', dataDir, '--database-url', databaseUrl],
    dataDir,
    databaseUrl,
    async cleanup() {
      await adminQuery(baseUrl, `DROP SCHEMA ${schema} CASCADE`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A second data dir on the same database: another node of the same deployment. */
export function otherNode(target: StoreTarget): { args: string[]; cleanup(): void } {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'searchplane-blackbox-node-'));
  return {
    args: ['--data-dir', dataDir, ...(target.databaseUrl ? ['--database-url', target.databaseUrl] : [])],
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

async function adminQuery(connectionString: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
