import { readdirSync, statSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { AppError } from '../../errors.js';

/*
 * Where an index's local files live, in one place: `${dataDir}/indexes/${indexId}/` holding
 * `index.sqlite` (documents, full-text index, embeddings) and one `vectors-<ns>.hnsw` graph per
 * namespace.
 */

const INDEX_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** The folder of an index; refuses ids that are not safe as one directory name. */
export function indexFolder(dataDir: string, indexId: string): string {
  // The id becomes a directory name: no separators, no "..", nothing hidden.
  if (!INDEX_ID.test(indexId) || indexId.includes('..')) {
    throw new AppError('invalid_request', `Invalid index id '${String(indexId).slice(0, 64)}'`);
  }
  return join(indexesRoot(dataDir), indexId);
}

export function indexesRoot(dataDir: string): string {
  return join(dataDir, 'indexes');
}

export function databaseFile(folder: string): string {
  return join(folder, 'index.sqlite');
}

export function vectorFile(folder: string, nsId: number): string {
  return join(folder, `vectors-${nsId}.hnsw`);
}

export function fullTextFile(folder: string, nsId: number): string {
  return join(folder, `fulltext-${nsId}.snap`);
}

/**
 * The file of part `i` of `count` of a file split by thread (`vectors-3.1-of-2.hnsw`); one part
 * keeps the base name itself.
 */
export function partFile(file: string, i: number, count: number): string {
  const extension = extname(file);
  return count === 1 ? file : `${file.slice(0, -extension.length)}.${i}-of-${count}${extension}`;
}

/**
 * Removes a file and its parts, whatever number of parts wrote them (see {@link partFile}), with
 * the temp files a crash during a write may have left.
 */
export async function removeFileParts(file: string): Promise<void> {
  const extension = extname(file);
  const stem = basename(file, extension);
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const mine = new RegExp(`^${literal(stem)}(\\.\\d+-of-\\d+)?${literal(extension)}(\\.tmp)?$`);
  let names: string[];
  try {
    names = await readdir(dirname(file));
  } catch {
    return;
  }
  await Promise.all(
    names.filter((name) => mine.test(name)).map((name) => rm(join(dirname(file), name), { force: true })),
  );
}

/** Ids of the indexes with a folder under `dataDir` (none when the folder does not exist). */
export async function localIndexIds(dataDir: string): Promise<string[]> {
  try {
    const entries = await readdir(indexesRoot(dataDir), { withFileTypes: true });
    return entries.filter((entry) => entry.isDirectory() && INDEX_ID.test(entry.name)).map((entry) => entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Bytes of the files directly in `dir` (0 when it does not exist). */
export function folderSize(dir: string): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let total = 0;
  for (const name of names) {
    try {
      total += statSync(join(dir, name)).size;
    } catch {
      // a temp file may vanish between listing and stat
    }
  }
  return total;
}
