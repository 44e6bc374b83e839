import type { Kysely } from 'kysely';
import type { SearchEngine } from '../../engine/contract.js';
import type { DB } from '../../store/schema.js';
import type { Clock } from '../clock.js';
import type { SearchIndexService } from '../search-index.service.js';
import type { UsageMeter } from '../usage-meter.service.js';
import { DataPlaneService } from './data-plane.service.js';
import { QuotaGuard } from './quota-guard.service.js';
import { ReadBytesBudget } from './read-bytes-budget.js';
import { SharedRateLimiter } from './shared-rate-limiter.js';
import { DataPlaneAuthenticator } from './token-auth.service.js';

/**
 * How often a node re-reads other nodes' usage for daily and monthly quotas on PostgreSQL: with
 * usage flushed every second too, a quota may be overshot by what the other nodes admit in about 2 s.
 */
const SHARED_USAGE_REFRESH_MS = 1000;

export { DataPlaneService } from './data-plane.service.js';
export { EngineIndexData, removeOrphanedIndexData } from './index-data-lifecycle.js';
export { QuotaGuard } from './quota-guard.service.js';
export { ReadBytesBudget, type ReadLease } from './read-bytes-budget.js';
export { DataPlaneAuthenticator, type DataPlaneCaller, type DataPlaneRoute } from './token-auth.service.js';

/** Everything the per-index HTTP API needs. */
export interface DataPlane {
  auth: DataPlaneAuthenticator;
  service: DataPlaneService;
  /** Memory of the documents that reads hold until their answers are sent (shared by all indexes). */
  readBytes: ReadBytesBudget;
}

export interface CreateDataPlaneOptions {
  engine: SearchEngine;
  indexes: SearchIndexService;
  usage: UsageMeter;
  clock: Clock;
  /** How often usage budgets are re-read from the store (default 5 s embedded, 1 s shared). */
  usageRefreshMs?: number;
  /**
   * With several nodes on PostgreSQL: per-second limits are then shared by every node (see
   * SharedRateLimiter) and daily/monthly budgets are re-read every second.
   */
  shared?: Kysely<DB>;
  /** Bytes of documents reads may hold at once (see ReadBytesBudget). */
  readBytesInFlight: number;
}

/** Wires the data-plane services over the engine and the management services' store. */
export function createDataPlane(options: CreateDataPlaneOptions): DataPlane {
  const quotas = new QuotaGuard(options.usage, options.clock, {
    refreshMs: options.usageRefreshMs ?? (options.shared ? SHARED_USAGE_REFRESH_MS : undefined),
    rates: options.shared ? new SharedRateLimiter(options.shared, options.clock) : undefined,
  });
  return {
    auth: new DataPlaneAuthenticator(options.indexes, options.clock),
    service: new DataPlaneService(options.engine, quotas),
    readBytes: new ReadBytesBudget(options.readBytesInFlight),
  };
}
