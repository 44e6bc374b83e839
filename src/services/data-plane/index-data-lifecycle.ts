import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { SearchEngine } from '../../engine/contract.js';
import { listAllSearchIndexIds } from '../../store/repositories/search-index.repository.js';
import type { DB } from '../../store/schema.js';
import type { IndexDataLifecycle, IndexDataSummary } from '../search-index.service.js';

/**
 * The management plane's view of index data, backed by the engine: deleting an index drops its
 * documents from disk, and stats report the engine's real counts and size. (The data plane's
 * in-memory quota state of a deleted index is left to expire: no token can reach it any more.)
 */
export class EngineIndexData implements IndexDataLifecycle {
  constructor(private readonly engine: SearchEngine) {}

  async dropIndexData(indexId: string): Promise<void> {
    await this.engine.drop(indexId);
  }

  async describeIndexData(indexId: string): Promise<IndexDataSummary> {
    const info = await (await this.engine.open(indexId)).info();
    return { vectorCount: info.vectorCount, pendingVectorCount: info.pendingVectorCount, storageBytes: info.indexSize };
  }
}

/** Where the embedded engine keeps index folders (`${dataDir}/indexes/${indexId}/`). */
export function engineIndexesDir(dataDir: string): string {
  return path.join(dataDir, 'indexes');
}

export interface OrphanSweepOptions {
  engine: SearchEngine;
  dataDir: string;
  db: Kysely<DB>;
  logger: SweepLogger;
}

/** The two logger methods the sweep uses (pino-compatible). */
interface SweepLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/**
 * Removes the data folders of indexes that no longer exist in the store (deleted while this
 * node was down, or with their account by the CLI). Folders are listed before the store is read:
 * a folder is only ever created after its index row, so a folder whose id is missing from the
 * later read really is orphaned, even with other nodes creating indexes meanwhile.
 * Returns the ids removed.
 */
export async function removeOrphanedIndexData(options: OrphanSweepOptions): Promise<string[]> {
  let folders: string[];
  try {
    folders = (await readdir(engineIndexesDir(options.dataDir), { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  if (folders.length === 0) return [];
  const known = new Set(await listAllSearchIndexIds(options.db));
  const orphans = folders.filter((id) => !known.has(id));
  const removed: string[] = [];
  for (const id of orphans) {
    try {
      await options.engine.drop(id);
      removed.push(id);
    } catch (error) {
      options.logger.warn({ err: error, indexId: id }, 'could not remove data of a deleted index');
    }
  }
  if (removed.length > 0)
    options.logger.info({ indexIds: removed }, `removed data of ${removed.length} deleted index(es)`);
  return removed;
}
