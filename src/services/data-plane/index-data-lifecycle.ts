import type { Kysely } from 'kysely';
import type { SearchEngine } from '../../engine/contract.js';
import { existingSearchIndexIds } from '../../store/repositories/search-index.repository.js';
import type { DB } from '../../store/schema.js';
import type { IndexDataLifecycle, IndexDataSummary } from '../search-index.service.js';

/**
 * The management plane's view of index data, backed by the engine: deleting an index drops its
 * documents from disk, and stats report the engine's real counts and size. (The data plane's
 * in-memory quota state of a deleted index is left to expire: no token can reach it any more.)
 */
export class EngineIndexData implements IndexDataLifecycle {
  constructor(
    private readonly engine: SearchEngine,
    private readonly dropAttempts = DROP_ATTEMPTS,
  ) {}

  /**
   * Drops the index's data. A folder removal that races a reader of the same files (stats of the
   * index being deleted) can fail with ENOTEMPTY or EBUSY; dropping is idempotent, so it is retried.
   */
  async dropIndexData(indexId: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.engine.drop(indexId);
        return;
      } catch (error) {
        if (attempt >= this.dropAttempts || !RACY_FILE_ERRORS.has((error as NodeJS.ErrnoException).code ?? '')) {
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 10 * attempt));
      }
    }
  }

  /** The index's counts; an index whose files vanish while they are read (deleted meanwhile) has none. */
  async describeIndexData(indexId: string): Promise<IndexDataSummary> {
    try {
      const summary = await this.engine.describe(indexId);
      return {
        vectorCount: summary.vectorCount,
        pendingVectorCount: summary.pendingVectorCount,
        storageBytes: summary.indexSize,
      };
    } catch (error) {
      if (!RACY_FILE_ERRORS.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
      return { vectorCount: 0, pendingVectorCount: 0, storageBytes: 0 };
    }
  }
}

/** Errors of file operations that lost a race with a concurrent removal or reader of the same files. */
const RACY_FILE_ERRORS = new Set(['ENOENT', 'ENOTEMPTY', 'EBUSY', 'EPERM']);
const DROP_ATTEMPTS = 5;

/** The two logger methods the sweep uses (pino-compatible). */
interface SweepLogger {
  info(obj: object, msg?: string): void;
}

/**
 * Removes what the engine holds for indexes that no longer exist in the store (deleted while
 * this node was down, or with their account by the CLI). Returns the ids removed.
 */
export async function removeOrphanedIndexData(
  engine: SearchEngine,
  db: Kysely<DB>,
  logger: SweepLogger,
): Promise<string[]> {
  const removed = await engine.sweep(async (ids) => new Set(await existingSearchIndexIds(db, ids)));
  if (removed.length > 0) logger.info({ indexIds: removed }, `removed data of ${removed.length} deleted index(es)`);
  return removed;
}
