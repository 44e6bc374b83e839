import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { api } from '../blackbox/support/http-client.js';
import { killServers, runCli, type ServerProcess, startServer } from '../blackbox/support/searchplane-process.js';

/**
 * `searchplane backup` while a server takes writes, then `searchplane restore` into a new data
 * dir: the restored server holds exactly the writes acknowledged before the snapshot point (a
 * prefix of the sequential writer's acknowledged writes, at least those acknowledged before the
 * backup began), searchable by full text.
 */
const auth = { email: 'backup@example.com', apiKey: 'backup-key-0123456789abcdef' };
const env = { SEARCHPLANE_ADMIN_EMAIL: auth.email, SEARCHPLANE_ADMIN_API_KEY: auth.apiKey };
const work = mkdtempSync(path.join(os.tmpdir(), 'searchplane-backup-fault-'));
afterAll(async () => {
  await killServers();
  rmSync(work, { recursive: true, force: true });
});

/** A word only document `i` holds, so a search finds exactly it. */
const word = (i: number) => `marker${String(i).padStart(5, '0')}x`;

async function allIds(server: ServerProcess, endpoint: string, token: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor = '';
  do {
    const page = await api(server.url, 'POST', `/indexes/${endpoint}/range/ns`, {
      bearer: token,
      body: { cursor, limit: 1000 },
    });
    expect(page.status).toBe(200);
    ids.push(...page.body.result.vectors.map((doc: { id: string }) => doc.id));
    cursor = page.body.result.nextCursor;
  } while (cursor !== '');
  return ids;
}

test('a backup taken during writes restores exactly the writes acknowledged before its snapshot', async () => {
  const source = path.join(work, 'source');
  const server = await startServer(['--data-dir', source], env);
  const created = await api(server.url, 'POST', '/v2/search', {
    auth,
    body: { name: 'live', region: 'eu-west-1', type: 'payg' },
  });
  expect(created.status).toBe(200);
  const { endpoint, token } = created.body;

  // One writer, one document per write, each acknowledged before the next is sent.
  let started = 0;
  let acknowledged = 0;
  let stop = false;
  const writer = (async () => {
    while (!stop) {
      const i = started++;
      const answer = await api(server.url, 'POST', `/indexes/${endpoint}/upsert-data/ns`, {
        bearer: token,
        body: [{ id: `d${i}`, content: { text: `document ${word(i)} of the stream` }, metadata: { i } }],
      });
      expect(answer.status).toBe(200);
      acknowledged = i + 1;
    }
  })();
  while (acknowledged < 200) await new Promise((resolve) => setTimeout(resolve, 20));

  const file = path.join(work, 'snapshot.searchplane');
  const acknowledgedBefore = acknowledged;
  const backup = await runCli(['backup', file, '--data-dir', source]);
  const startedBeforeEnd = started;
  expect(backup.code, backup.stderr).toBe(0);
  expect(JSON.parse(backup.stdout)).toMatchObject({ file, indexes: 1 });
  // Writes go on after the snapshot: none of them may be in the backup.
  const goOnUntil = acknowledged + 100;
  while (acknowledged < goOnUntil) await new Promise((resolve) => setTimeout(resolve, 20));
  stop = true;
  await writer;
  await server.stop();

  const target = path.join(work, 'restored');
  const restore = await runCli(['restore', file, '--data-dir', target]);
  expect(restore.code, restore.stderr).toBe(0);
  const restored = await startServer(['--data-dir', target], env);
  const ids = await allIds(restored, endpoint, token);
  const count = ids.length;
  expect(count).toBeGreaterThanOrEqual(acknowledgedBefore);
  expect(count).toBeLessThanOrEqual(startedBeforeEnd);
  expect(new Set(ids)).toEqual(new Set(Array.from({ length: count }, (_, i) => `d${i}`)));
  if (process.env.FAULT_VERBOSE) {
    console.log(
      `backup: ${acknowledgedBefore} acknowledged before it began, ${count} restored, ${acknowledged} in all`,
    );
  }

  const search = async (i: number) =>
    (
      await api(restored.url, 'POST', `/indexes/${endpoint}/search/ns`, {
        bearer: token,
        body: { query: word(i), topK: 3, semanticWeight: 0, inputEnrichment: false },
      })
    ).body.result.map((hit: { id: string }) => hit.id);
  expect(await search(0)).toEqual(['d0']);
  expect(await search(count - 1)).toEqual([`d${count - 1}`]);
  expect(await search(count)).toEqual([]);
  const info = await api(restored.url, 'GET', `/indexes/${endpoint}/info`, { bearer: token });
  expect(info.body.result.vectorCount).toBe(count);
});
