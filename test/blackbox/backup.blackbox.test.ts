import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { runCli } from './support/searchplane-process.js';

/**
 * `searchplane backup` and `restore` of the embedded store: what they refuse. (A backup taken
 * under writes and restored is a fault test: test/faults/backup-under-writes.fault.test.ts.)
 */
const work = mkdtempSync(path.join(os.tmpdir(), 'searchplane-backup-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

test('a backup of a data dir and its restore into an empty one round-trip the store', async () => {
  const source = path.join(work, 'source');
  expect((await runCli(['migrate', '--data-dir', source])).code).toBe(0);
  const created = await runCli(['accounts', 'create', '--email', 'someone@example.com', '--data-dir', source]);
  expect(created.code, created.stderr).toBe(0);
  const file = path.join(work, 'store.backup');
  const backup = await runCli(['backup', file, '--data-dir', source]);
  expect(backup.code, backup.stderr).toBe(0);
  expect(JSON.parse(backup.stdout)).toEqual({ file, created_at: expect.any(String), indexes: 0 });

  const target = path.join(work, 'new', 'data');
  const restore = await runCli(['restore', file, '--data-dir', target]);
  expect(restore.code, restore.stderr).toBe(0);
  expect(JSON.parse(restore.stdout)).toEqual({ data_dir: target, created_at: expect.any(String), indexes: 0 });
  const accounts = await runCli(['accounts', 'list', '--data-dir', target]);
  expect(accounts.stdout).toContain('someone@example.com');

  // Not into a data dir that holds anything: the restore would mix with it.
  const refused = await runCli(['restore', file, '--data-dir', target]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/is not empty/);
});

test('restore refuses a file that is not a backup and leaves the data dir empty', async () => {
  const bogus = path.join(work, 'bogus.backup');
  writeFileSync(bogus, 'not a backup');
  const empty = path.join(work, 'empty');
  mkdirSync(empty);
  const failed = await runCli(['restore', bogus, '--data-dir', empty]);
  expect(failed.code).toBe(1);
  expect(failed.stderr).toMatch(/not a searchplane backup/);
  expect(readdirSync(empty)).toEqual([]);
});

test('backup and restore are for the embedded store: on PostgreSQL they say what to use instead', async () => {
  const env = { DATABASE_URL: 'postgres://u:p@127.0.0.1:1/db' };
  for (const verb of ['backup', 'restore']) {
    const refused = await runCli([verb, path.join(work, 'x.backup')], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/pg_dump/);
  }
});
