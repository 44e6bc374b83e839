import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, expect, test, vi } from 'vitest';
import { FOREIGN_CHANGE_POLL_MS, SqliteConnectionDatabase } from './sqlite-database.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function open(file: string) {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  return db;
}

test('reuses prepared statements and changes its token on its own writes and on other connections’ commits', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sqlite-db-'));
  dirs.push(dir);
  const file = path.join(dir, 'db.sqlite');
  let now = 1_000_000;
  const connection = new SqliteConnectionDatabase(open(file), () => now);
  connection.prepare('CREATE TABLE t (v INTEGER)').run([]);

  const select = connection.prepare('SELECT count(*) AS n FROM t');
  expect(connection.prepare('SELECT count(*) AS n FROM t')).toBe(select);

  const before = connection.changeToken();
  select.all([]);
  expect(connection.changeToken()).toBe(before);

  connection.prepare('INSERT INTO t (v) VALUES (?)').run([1]);
  const afterOwnWrite = connection.changeToken();
  expect(afterOwnWrite).not.toBe(before);

  const other = open(file);
  other.prepare('INSERT INTO t (v) VALUES (2)').run();
  other.close();
  // Another connection's commit is seen by the next poll, at most FOREIGN_CHANGE_POLL_MS later.
  now += FOREIGN_CHANGE_POLL_MS - 1;
  expect(connection.changeToken()).toBe(afterOwnWrite);
  now += 1;
  expect(connection.changeToken()).not.toBe(afterOwnWrite);
  expect(select.all([])).toEqual([{ n: 2 }]);
  connection.close();
});

test('holds no timer, so a store that is never closed keeps no process alive', () => {
  vi.useFakeTimers();
  try {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sqlite-db-'));
    dirs.push(dir);
    const connection = new SqliteConnectionDatabase(open(path.join(dir, 'db.sqlite')));
    connection.changeToken();
    expect(vi.getTimerCount()).toBe(0);
    connection.close();
  } finally {
    vi.useRealTimers();
  }
});
