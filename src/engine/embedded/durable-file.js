/**
 * Replacing an index file so that a crash or power loss leaves either the old file or the whole
 * new one. A rename alone does not: the file system may commit the rename before the new file's
 * data, and after a power loss the name then holds a file of the right length whose blocks were
 * never written (ext4 in its default mode and btrfs start writing such data before the rename on
 * their own; XFS and ext4 mounted with data=writeback or noauto_da_alloc do not). A
 * graph file like that can load with empty neighbour lists, and searches lose recall until it is
 * rebuilt. Plain JS so that the HNSW worker (which Node loads from src/ under Vitest) and the
 * TypeScript main thread share it.
 */
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Errors of systems that cannot fsync a directory (Windows, some network file systems). */
const DIRECTORY_SYNC_UNSUPPORTED = new Set(['EISDIR', 'EINVAL', 'EPERM', 'EACCES', 'ENOTSUP']);

/**
 * Writes `file` through `write`, which writes a whole file at the path it is given (a temp file
 * beside `file`), then flushes that file to disk, renames it over `file` and flushes the directory
 * (which holds the rename). On failure the temp file is removed (a short file would keep space a
 * full disk needs back) and `file` is left as it was.
 *
 * @param {string} file
 * @param {(temp: string) => Promise<unknown>} write
 * @returns {Promise<void>}
 */
export async function replaceFileDurably(file, write) {
  const temp = tempFileOf(file);
  try {
    await write(temp);
    await syncPath(temp, 'r+');
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  try {
    await syncPath(dirname(file), 'r');
  } catch (error) {
    if (!DIRECTORY_SYNC_UNSUPPORTED.has(/** @type {NodeJS.ErrnoException} */ (error).code ?? '')) throw error;
  }
}

/**
 * Removes a file {@link replaceFileDurably} writes, with the temp file a crash during a write may
 * have left beside it.
 *
 * @param {string} file
 * @returns {Promise<void>}
 */
export async function removeReplacedFile(file) {
  await Promise.all([rm(file, { force: true }), rm(tempFileOf(file), { force: true })]);
}

/** @param {string} file */
function tempFileOf(file) {
  return `${file}.tmp`;
}

/**
 * @param {string} path
 * @param {string} flags
 */
async function syncPath(path, flags) {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
