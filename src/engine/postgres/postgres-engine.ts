import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.js';
import type { IndexEngine, IndexSummary, OpenOptions, SearchEngine } from '../contract.js';
import { createEmbeddedEngine, type EmbeddedEngineOptions } from '../embedded/embedded-engine.js';
import type { EngineLogger } from '../providers/provider-types.js';
import { deleteIndexData, notify, orphanedIndexIds, pruneRemovals, readHead } from './index-records.js';
import { CHANGES_CHANNEL, PostgresIndex } from './postgres-index.js';
import { Replica } from './replica.js';

/** Subscribes to a LISTEN channel; resolves to an unsubscribe function. */
export type Listen = (
  channel: string,
  onMessage: (payload: string) => void,
  /** Called after the connection was lost and re-established (messages may have been missed). */
  onReconnect: () => void,
) => Promise<() => Promise<void>>;

export interface PostgresEngineOptions extends EmbeddedEngineOptions {
  db: Kysely<DB>;
  /** Notifications from other nodes; without it, drops by other nodes are noticed by the periodic sweep only. */
  listen?: Listen;
  clock?: () => number;
  /** How often a transaction waiting on this node sends a statement (see withHeartbeat). */
  heartbeatMs?: number;
  /** How long removals stay in the change log (default 7 days); replicas older than that rebuild. */
  removalRetentionMs?: number;
  /** How often this node prunes the change log and looks for data of deleted indexes (default 10 min). */
  maintenanceIntervalMs?: number;
}

const silentLogger: EngineLogger = { info() {}, warn() {}, error() {} };
/** Replicas remembered (their locks and watermarks) while idle; beyond, idle ones are forgotten. */
const MAX_REPLICAS = 10_000;

/**
 * The engine in PostgreSQL mode: PostgreSQL is the system of record of every index (documents,
 * vectors, change log, counts), and this node's embedded engine under `dataDir` holds replicas
 * that are derived from it and disposable: built on first use, kept current by replaying the change
 * log, rebuilt from PostgreSQL (without calling the embedder) when their files are gone.
 */
export function createPostgresEngine(options: PostgresEngineOptions): SearchEngine {
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? Date.now;
  const local = createEmbeddedEngine(options);
  const replicas = new Map<string, Replica>();
  let unlisten: (() => Promise<void>) | undefined;
  let closed = false;

  const replicaOf = (indexId: string): Replica => {
    let replica = replicas.get(indexId);
    if (!replica) {
      replica = new Replica(indexId, options.db, local, logger, options.heartbeatMs);
      replicas.set(indexId, replica);
      if (replicas.size > MAX_REPLICAS) {
        for (const [id, candidate] of replicas) {
          if (replicas.size <= MAX_REPLICAS) break;
          if (candidate.idle && candidate !== replica) replicas.delete(id);
        }
      }
    }
    return replica;
  };

  const dropLocal = async (indexId: string) => {
    replicas.delete(indexId);
    await local.drop(indexId);
  };

  const onMessage = (payload: string) => {
    const [kind, indexId] = payload.split(':');
    if (kind === 'dropped') {
      dropLocal(indexId).catch((error) => logger.warn({ err: error, indexId }, 'dropping a deleted index failed'));
    } else if (kind === 'changed') {
      // Catch up in the background, so vectors start indexing before the next read asks.
      const replica = replicas.get(indexId);
      if (replica?.idle) replica.sync().catch(() => {});
    }
  };

  const sweepRecord = async () => {
    for (const indexId of await orphanedIndexIds(options.db)) {
      await options.db.transaction().execute((trx) => deleteIndexData(trx, indexId));
    }
  };

  const engine: SearchEngine = {
    async open(indexId: string, openOptions?: OpenOptions): Promise<IndexEngine> {
      await local.open(indexId); // validates the id
      return new PostgresIndex(replicaOf(indexId), clock, openOptions?.recordHead);
    },

    async describe(indexId: string): Promise<IndexSummary> {
      const [head, here] = await Promise.all([readHead(options.db, indexId), local.describe(indexId)]);
      return {
        vectorCount: head?.documentCount ?? 0,
        pendingVectorCount: here.pendingVectorCount,
        indexSize: head?.storedBytes ?? 0,
      };
    },

    async drop(indexId: string): Promise<void> {
      await options.db.transaction().execute(async (trx) => {
        await deleteIndexData(trx, indexId);
        await notify(trx, CHANGES_CHANNEL, `dropped:${indexId}`);
      });
      await dropLocal(indexId);
    },

    async sweep(existing): Promise<string[]> {
      await sweepRecord();
      return local.sweep(existing);
    },

    stats: () => local.stats(),

    async close(): Promise<void> {
      closed = true;
      clearInterval(maintenance);
      await unlisten?.().catch(() => {});
      await local.close();
    },
  };

  const maintenance = setInterval(() => {
    const before = Math.floor((clock() - (options.removalRetentionMs ?? 7 * 86_400_000)) / 1000);
    pruneRemovals(options.db, before)
      .then(sweepRecord)
      .catch((error) => logger.warn({ err: error }, 'change log maintenance failed'));
  }, options.maintenanceIntervalMs ?? 600_000).unref();

  if (options.listen) {
    options
      .listen(CHANGES_CHANNEL, onMessage, () => {
        if (closed) return;
        // Drops may have been missed while disconnected: compare local replicas with the record.
        engine
          .sweep(async (ids) => {
            const rows = await options.db.selectFrom('search_indexes').select('id').where('id', 'in', ids).execute();
            return new Set(rows.map((row) => row.id));
          })
          .catch((error) => logger.warn({ err: error }, 'comparing local copies with the record failed'));
      })
      .then((stop) => {
        // Closed while the first connection was being made (it may retry for a long time).
        if (closed) void stop();
        else unlisten = stop;
      })
      .catch((error) => logger.warn({ err: error }, 'listening for index changes failed'));
  }
  return engine;
}
