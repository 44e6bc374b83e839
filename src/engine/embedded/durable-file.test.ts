import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { removeReplacedFile, replaceFileDurably } from './durable-file.js';

/** What the file system was asked, in order; `failOpen` makes opening a path fail with a code. */
const fsLog = vi.hoisted(() => ({ events: [] as string[], failOpen: new Map<string, string>() }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const name = (file: unknown) => path.basename(String(file));
  return {
    ...actual,
    open: async (file: string, flags: string) => {
      const code = fsLog.failOpen.get(file);
      if (code) throw Object.assign(new Error(`open ${file}: ${code}`), { code });
      const handle = await actual.open(file, flags);
      return {
        sync: async () => {
          fsLog.events.push(`sync ${name(file)}`);
          await handle.sync();
        },
        close: () => handle.close(),
      };
    },
    rename: async (from: string, to: string) => {
      fsLog.events.push(`rename ${name(from)} ${name(to)}`);
      await actual.rename(from, to);
    },
  };
});

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'durable-file-'));
  file = path.join(dir, 'graph.bin');
  writeFileSync(file, 'old');
  fsLog.events.length = 0;
  fsLog.failOpen.clear();
});

afterEach(() => {
  vi.restoreAllMocks();
});

test('the new file is flushed before it is renamed over the old one, then the directory is flushed', async () => {
  await replaceFileDurably(file, (temp) => writeFile(temp, 'new'));
  expect(readFileSync(file, 'utf8')).toBe('new');
  expect(existsSync(`${file}.tmp`)).toBe(false);
  expect(fsLog.events).toEqual(['sync graph.bin.tmp', 'rename graph.bin.tmp graph.bin', `sync ${path.basename(dir)}`]);
});

test('a failed write leaves the old file and no temp file', async () => {
  const failure = new Error('disk full');
  await expect(
    replaceFileDurably(file, async (temp) => {
      await writeFile(temp, 'partial');
      throw failure;
    }),
  ).rejects.toBe(failure);
  expect(readFileSync(file, 'utf8')).toBe('old');
  expect(existsSync(`${file}.tmp`)).toBe(false);
  expect(fsLog.events).toEqual([]);
});

test('a temp file that cannot be flushed is not renamed', async () => {
  fsLog.failOpen.set(`${file}.tmp`, 'EIO');
  await expect(replaceFileDurably(file, (temp) => writeFile(temp, 'new'))).rejects.toMatchObject({ code: 'EIO' });
  expect(readFileSync(file, 'utf8')).toBe('old');
  expect(existsSync(`${file}.tmp`)).toBe(false);
});

test('a directory the system cannot flush (Windows) is no error; a failing disk is', async () => {
  fsLog.failOpen.set(dir, 'EISDIR');
  await replaceFileDurably(file, (temp) => writeFile(temp, 'new'));
  expect(readFileSync(file, 'utf8')).toBe('new');

  fsLog.failOpen.set(dir, 'EIO');
  await expect(replaceFileDurably(file, (temp) => writeFile(temp, 'newer'))).rejects.toMatchObject({ code: 'EIO' });
  // The rename itself happened: the file is whole, only its name may not survive a power loss.
  expect(readFileSync(file, 'utf8')).toBe('newer');
});

test('removing a replaced file also removes the temp file a crash left, and a missing one is no error', async () => {
  writeFileSync(`${file}.tmp`, 'half written');
  await removeReplacedFile(file);
  expect(existsSync(file)).toBe(false);
  expect(existsSync(`${file}.tmp`)).toBe(false);
  await removeReplacedFile(file);
});
