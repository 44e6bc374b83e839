import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import * as tar from 'tar';
import { databaseFile, indexFolder } from '../engine/embedded/index-files.js';
import { SQLITE_FILE_NAME } from './database.js';

/** What a backup holds besides the databases: its format and what it covers. */
export interface BackupManifest {
  format: 'searchplane-backup';
  version: 1;
  created_at: string;
  /** Indexes whose documents the backup holds (every index of the management snapshot that had any). */
  indexes: string[];
}

const MANIFEST = 'backup.json';

/** A backup or restore that cannot be done as asked; the message says why (exit code 1). */
export class BackupError extends Error {
  override readonly name = 'BackupError';
}

/**
 * Takes a consistent snapshot of an embedded data dir into `file`, while a server may be serving
 * writes on it: each SQLite database (the management store, then each index's documents) is
 * copied with `VACUUM INTO`, which reads it in one transaction, so it holds exactly the commits
 * made before that read began (WAL lets it read beside the server's writes). Each index's
 * snapshot is taken at its own moment, after the management store's. The full-text and vector
 * index files are not copied: a server rebuilds them from SQLite on first use. The file is a gzip
 * tar of those databases and a manifest, written beside `file` and renamed into place when whole.
 */
export async function backupDataDir(dataDir: string, file: string): Promise<BackupManifest> {
  const management = path.join(dataDir, SQLITE_FILE_NAME);
  if (!existsSync(management))
    throw new BackupError(`no store at ${management}: give the --data-dir the server runs with`);
  const target = path.resolve(file);
  const staging = mkdtempSync(`${target}.tmp-`);
  try {
    snapshot(management, path.join(staging, SQLITE_FILE_NAME));
    const indexes: string[] = [];
    for (const id of indexIds(path.join(staging, SQLITE_FILE_NAME))) {
      const source = databaseFile(indexFolder(dataDir, id));
      if (!existsSync(source)) continue; // never written to
      const copy = databaseFile(indexFolder(staging, id));
      mkdirSync(path.dirname(copy), { recursive: true });
      snapshot(source, copy);
      indexes.push(id);
    }
    const manifest: BackupManifest = {
      format: 'searchplane-backup',
      version: 1,
      created_at: new Date().toISOString(),
      indexes,
    };
    writeFileSync(path.join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    const partial = `${target}.partial`;
    const entries = [MANIFEST, SQLITE_FILE_NAME, ...(indexes.length > 0 ? ['indexes'] : [])];
    await tar.create({ gzip: true, file: partial, cwd: staging, portable: true }, entries);
    await flush(partial);
    renameSync(partial, target);
    return manifest;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Restores a backup made by {@link backupDataDir} into `dataDir`, which must be empty or not
 * exist: a restore never mixes with or overwrites data. Returns the backup's manifest.
 */
export async function restoreDataDir(file: string, dataDir: string): Promise<BackupManifest> {
  if (!existsSync(file)) throw new BackupError(`no backup file at ${file}`);
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    throw new BackupError(`the data dir ${dataDir} is not empty: restore only into an empty or new directory`);
  }
  mkdirSync(dataDir, { recursive: true });
  try {
    // tar refuses absolute paths and `..` in entries by default (strict: any such entry fails).
    await tar.extract({ file, cwd: dataDir, strict: true });
    const manifest = readManifest(dataDir);
    for (const database of [
      path.join(dataDir, SQLITE_FILE_NAME),
      ...manifest.indexes.map((id) => databaseFile(indexFolder(dataDir, id))),
    ]) {
      check(database);
    }
    rmSync(path.join(dataDir, MANIFEST));
    return manifest;
  } catch (error) {
    // Leave the directory as empty as it was found, so the restore can simply be run again.
    for (const name of readdirSync(dataDir)) rmSync(path.join(dataDir, name), { recursive: true, force: true });
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${file} is not a searchplane backup: ${(error as Error).message}`, { cause: error });
  }
}

/** `VACUUM INTO`: one read transaction over `source`, written to `destination` as a new database. */
function snapshot(source: string, destination: string): void {
  const db = new SQLite(source, { fileMustExist: true });
  try {
    // A server checkpointing or writing holds the file's locks for moments only.
    db.pragma('busy_timeout = 10000');
    db.prepare('VACUUM INTO ?').run(destination);
  } finally {
    db.close();
  }
}

function indexIds(managementCopy: string): string[] {
  const db = new SQLite(managementCopy, { readonly: true });
  try {
    return db.prepare('SELECT id FROM search_indexes ORDER BY id').pluck().all() as string[];
  } finally {
    db.close();
  }
}

function readManifest(dataDir: string): BackupManifest {
  const file = path.join(dataDir, MANIFEST);
  if (!existsSync(file)) throw new BackupError(`no ${MANIFEST} in it: not a searchplane backup`);
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as Partial<BackupManifest>;
  if (manifest.format !== 'searchplane-backup' || manifest.version !== 1 || !Array.isArray(manifest.indexes)) {
    throw new BackupError(`${MANIFEST} is not that of a searchplane backup this version can restore`);
  }
  return manifest as BackupManifest;
}

/** Fails when a restored database is damaged. */
function check(database: string): void {
  const db = new SQLite(database, { readonly: true, fileMustExist: true });
  try {
    const result = db.pragma('quick_check', { simple: true });
    if (result !== 'ok') throw new BackupError(`${database} is damaged: ${String(result)}`);
  } finally {
    db.close();
  }
}

/** Makes the file's content durable before it is renamed into place. */
async function flush(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
