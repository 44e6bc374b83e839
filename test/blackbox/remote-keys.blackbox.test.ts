import { expect, test } from 'vitest';
import { createIndex } from '../helpers/factories.js';
import { useRemoteTarget } from './support/remote-cli.js';
import { parseJson } from './support/searchplane-process.js';

const remote = useRemoteTarget();

test('keys create, list and delete; the created key works with the account email', async () => {
  const index = await createIndex(remote.ctx.app, remote.account, { name: 'reports' });
  const created = await remote.run([
    'keys',
    'create',
    'reporting',
    '--actions',
    'indexes.read,stats.read',
    '--indexes',
    'reports',
    '--expires-at',
    '2099-01-01T00:00:00Z',
    '--json',
  ]);
  expect(created.code, created.stderr).toBe(0);
  const key = parseJson(created.stdout);
  expect(key).toMatchObject({
    name: 'reporting',
    actions: ['indexes.read', 'stats.read'],
    indexes: [index.id],
    expires_at: Date.parse('2099-01-01T00:00:00Z') / 1000,
    key: expect.stringMatching(/^sp_/),
  });

  // The new key, as a CLI user would use it.
  const asKey = ['--url', remote.ctx.baseUrl, '--email', remote.account.email, '--key', key.key];
  const listed = await remote.runBare([...asKey, 'indexes', 'list', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  expect(parseJson(listed.stdout).map((record: { id: string }) => record.id)).toEqual([index.id]);
  const refused = await remote.runBare([...asKey, 'keys', 'list']);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/^searchplane: 403 missing_action_keys_read: /);

  const table = await remote.run(['keys', 'list']);
  expect(table.code).toBe(0);
  const [header, row] = table.stdout.trimEnd().split('\n');
  expect(header.split(/\s+/)).toEqual(['NAME', 'ID', 'ACTIONS', 'INDEXES', 'EXPIRES']);
  expect(row.split(/\s+/)).toEqual(['reporting', key.id, 'indexes.read,stats.read', '1', '2099-01-01T00:00:00Z']);
  expect(table.stdout).not.toContain(key.key);

  const human = await remote.run(['keys', 'create', 'other', '--actions', '*']);
  expect(human.code).toBe(0);
  expect(human.stdout).toMatch(/^key:\s+sp_\S+$/m);
  expect(human.stdout).toMatch(/^actions:\s+\*$/m);

  const deleted = await remote.run(['keys', 'delete', 'reporting', '--json']);
  expect(deleted.code, deleted.stderr).toBe(0);
  expect(parseJson(deleted.stdout)).toEqual({ id: key.id, name: 'reporting', deleted: true });
  const after = await remote.runBare([...asKey, 'indexes', 'list']);
  expect(after.code).toBe(1);
  expect(after.stderr).toMatch(/^searchplane: 401 unauthorized/);

  const missing = await remote.run(['keys', 'delete', 'reporting']);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toMatch(/^searchplane: no API key "reporting"/);
});

test('bad options are usage errors (exit 2)', async () => {
  const noActions = await remote.run(['keys', 'create', 'x']);
  expect(noActions.code).toBe(2);
  expect(noActions.stderr).toContain('--actions');
  const badExpiry = await remote.run(['keys', 'create', 'x', '--actions', '*', '--expires-at', 'soon']);
  expect(badExpiry.code).toBe(2);
  expect(badExpiry.stderr).toContain('--expires-at');
});
