import type { Config } from '../config.js';
import type { Store } from '../store/database.js';
import { ReadCache } from '../store/read-cache.js';
import { AccountService } from './account.service.js';
import type { Clock } from './clock.js';
import { MessagingService } from './messaging.service.js';
import { ReadinessService } from './readiness.service.js';
import { type IndexDataLifecycle, SearchIndexService } from './search-index.service.js';
import { UsageMeter } from './usage-meter.service.js';
import { UsageStatsService } from './usage-stats.service.js';

export interface Services {
  accounts: AccountService;
  indexes: SearchIndexService;
  messaging: MessagingService;
  readiness: ReadinessService;
  stats: UsageStatsService;
  usage: UsageMeter;
}

export interface CreateServicesOptions {
  config: Config;
  store: Store;
  clock: Clock;
  /** The data side of indexes (documents); absent in management-only setups. */
  data?: IndexDataLifecycle;
  onUsageFlushError?: (error: unknown) => void;
}

/** Wires the domain services over one store. */
export function createServices({ config, store, clock, data, onUsageFlushError }: CreateServicesOptions): Services {
  const cache = new ReadCache(() => store.changeToken());
  const usage = new UsageMeter(store.db, clock, config.meteringFlushMs, onUsageFlushError ?? (() => {}), cache);
  const indexes = new SearchIndexService(store, {
    clock,
    plans: config.plans,
    freeIndexLimit: config.freeIndexLimit,
    usage,
    data,
    cache,
  });
  return {
    accounts: new AccountService(store, { clock, messagingDefaultPlan: config.messagingDefaultPlan, cache }),
    indexes,
    messaging: new MessagingService(store),
    readiness: new ReadinessService(() => store.ping()),
    stats: new UsageStatsService(indexes, usage, clock, data),
    usage,
  };
}
