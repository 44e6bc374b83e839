import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { callIndex, setQuotas } from '../helpers/data-plane.js';
import { createIndex } from '../helpers/factories.js';
import { jsonLines, useRemoteTarget } from './support/remote-cli.js';
import { spawnCli } from './support/searchplane-process.js';

const remote = useRemoteTarget();

const newIndex = (name: string) => createIndex(remote.ctx.app, remote.account, { name });

async function namespaces(index: { endpoint: string; token: string }): Promise<string[]> {
  const response = await callIndex(remote.ctx.app, index.endpoint, 'list-namespaces', index.token);
  return (JSON.parse(response.body).result as string[]).sort();
}

describe('namespaces named "." and ".."', () => {
  test('import, get, search, export and delete address exactly those namespaces', async () => {
    const index = await newIndex('dots');
    const file = remote.file('dot.jsonl', '{"id":"in-dot","content":{"t":"zebra"}}\n');
    const other = remote.file('default.jsonl', '{"id":"in-default","content":{"t":"zebra"}}\n');
    expect((await remote.run(['docs', 'import', 'dots', other])).code).toBe(0);
    for (const namespace of ['.', '..']) {
      const imported = await remote.run(['docs', 'import', 'dots', file, '--namespace', namespace]);
      expect(imported.code).toBe(0);
    }
    expect(await namespaces(index)).toEqual(['', '.', '..']);

    for (const namespace of ['.', '..']) {
      const found = await remote.run(['docs', 'get', 'dots', 'in-dot', '--namespace', namespace]);
      expect(found.code).toBe(0);
      expect(jsonLines(found.stdout).map((doc) => doc.id)).toEqual(['in-dot']);
      expect((await remote.run(['docs', 'get', 'dots', 'in-default', '--namespace', namespace])).code).toBe(1);
      const hits = await remote.run(['search', 'dots', 'zebra', '--namespace', namespace, '--json']);
      expect(JSON.parse(hits.stdout).map((hit: { id: string }) => hit.id)).toEqual(['in-dot']);
      const exported = await remote.run(['docs', 'export', 'dots', '-', '--namespace', namespace, '--no-progress']);
      expect(jsonLines(exported.stdout).map((doc) => doc.id)).toEqual(['in-dot']);
    }

    const deleted = await remote.run(['docs', 'delete', 'dots', 'in-default', 'in-dot', '--namespace', '.', '--json']);
    expect(JSON.parse(deleted.stdout)).toEqual({ deleted: 1 });
    const stillThere = await remote.run(['docs', 'get', 'dots', 'in-default', 'in-dot', '--namespace', '..']);
    expect(jsonLines(stillThere.stdout).map((doc) => doc.id)).toEqual(['in-dot']);
    expect((await remote.run(['docs', 'get', 'dots', 'in-default'])).code).toBe(0);
  });
});

describe('search', () => {
  test('without --top-k it works on an index reading fewer than 10 per request', async () => {
    const index = await newIndex('few-reads');
    await setQuotas(remote.ctx.store, index.id, { max_reads_per_request: 7 });
    const docs = Array.from({ length: 9 }, (_, i) => ({ id: `z${i}`, content: { t: `zebra ${i}` } }));
    await callIndex(remote.ctx.app, index.endpoint, 'upsert-data', index.token, docs);
    const result = await remote.run(['search', 'few-reads', 'zebra', '--semantic-weight', '0', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveLength(7);
  });
});

describe('credentials', () => {
  test('a broken login file does not matter when flags give every part', async () => {
    const configHome = mkdtempSync(path.join(os.tmpdir(), 'searchplane-broken-config-'));
    const file = path.join(configHome, 'searchplane', 'credentials.json');
    mkdirSync(path.dirname(file), { recursive: true });
    try {
      for (const content of ['{bad', 'null']) {
        writeFileSync(file, content);
        const listed = await remote.run(['indexes', 'list', '--json'], { XDG_CONFIG_HOME: configHome });
        expect(listed.code).toBe(0);
        const bare = await remote.runBare(['indexes', 'list', '--url', remote.ctx.baseUrl], {
          XDG_CONFIG_HOME: configHome,
        });
        expect(bare.code).toBe(2);
        expect(bare.stderr).toMatch(/^searchplane: .*credentials\.json is not valid JSON: run `searchplane login`/);
      }
      rmSync(file);
      mkdirSync(file);
      expect((await remote.run(['indexes', 'list', '--json'], { XDG_CONFIG_HOME: configHome })).code).toBe(0);
    } finally {
      rmSync(configHome, { recursive: true, force: true });
    }
  });
});

describe('docs export', () => {
  test('SIGINT or SIGTERM half-way removes <file>.partial and exits 130 or 143', async () => {
    const index = await newIndex('interrupted');
    await setQuotas(remote.ctx.store, index.id, { max_reads_per_request: 1 });
    const docs = Array.from({ length: 400 }, (_, i) => ({ id: `s${i}`, content: { t: `text ${i}` } }));
    await callIndex(remote.ctx.app, index.endpoint, 'upsert-data', index.token, docs);
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const) {
      const target = path.join(remote.workDir, `interrupted-${signal}.jsonl`);
      const child = spawnCli([...remote.flags(), 'docs', 'export', 'interrupted', target, '--no-progress'], {
        XDG_CONFIG_HOME: remote.configHome,
      });
      const exited = new Promise<number | null>((resolve) => child.on('close', (exitCode) => resolve(exitCode)));
      while (!existsSync(`${target}.partial`) || statSync(`${target}.partial`).size === 0) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      child.kill(signal);
      expect(await exited).toBe(code);
      expect(existsSync(`${target}.partial`)).toBe(false);
      expect(existsSync(target)).toBe(false);
    }
  });

  test('to an existing directory: one line, exit 2, before anything is downloaded', async () => {
    const index = await newIndex('to-dir');
    await callIndex(remote.ctx.app, index.endpoint, 'upsert-data', index.token, [{ id: 'a', content: { t: 'x' } }]);
    const result = await remote.run(['docs', 'export', 'to-dir', remote.workDir, '--no-progress']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `searchplane: cannot export to ${remote.workDir}: it is a directory (give a file name)\n`,
    );
    expect(existsSync(`${remote.workDir}.partial`)).toBe(false);
  });
});
