import type { SearchEngine } from '../../engine/contract.js';
import type { Clock } from '../clock.js';
import type { SearchIndexService } from '../search-index.service.js';
import type { UsageMeter } from '../usage-meter.service.js';
import { DataPlaneService } from './data-plane.service.js';
import { QuotaGuard } from './quota-guard.service.js';
import { DataPlaneAuthenticator } from './token-auth.service.js';

export { DataPlaneService } from './data-plane.service.js';
export { EngineIndexData, removeOrphanedIndexData } from './index-data-lifecycle.js';
export { QuotaGuard } from './quota-guard.service.js';
export { DataPlaneAuthenticator, type DataPlaneCaller, type DataPlaneRoute } from './token-auth.service.js';

/** Everything the per-index HTTP API needs. */
export interface DataPlane {
  auth: DataPlaneAuthenticator;
  service: DataPlaneService;
}

export interface CreateDataPlaneOptions {
  engine: SearchEngine;
  indexes: SearchIndexService;
  usage: UsageMeter;
  clock: Clock;
  /** How often usage budgets are re-read from the store (default 5 s). */
  usageRefreshMs?: number;
}

/** Wires the data-plane services over the engine and the management services' store. */
export function createDataPlane(options: CreateDataPlaneOptions): DataPlane {
  const quotas = new QuotaGuard(options.usage, options.clock, { refreshMs: options.usageRefreshMs });
  return {
    auth: new DataPlaneAuthenticator(options.indexes),
    service: new DataPlaneService(options.engine, quotas),
  };
}
