import type { Config } from '../config.js';
import type { Store } from '../store/database.js';
import { ReadCache } from '../store/read-cache.js';
import { AccountService } from './account.service.js';
import { ApiKeyService } from './api-key.service.js';
import { AuditLogService } from './audit-log.service.js';
import type { Clock } from './clock.js';
import { IdempotencyService } from './idempotency.service.js';
import { MessagingService } from './messaging.service.js';
import { ReadinessService } from './readiness.service.js';
import { type IndexDataLifecycle, SearchIndexService } from './search-index.service.js';
import { UsageMeter } from './usage-meter.service.js';
import { UsageStatsService } from './usage-stats.service.js';
import { VerifiedCredentials } from './verified-credentials.js';

export interface Services {
  accounts: AccountService;
  apiKeys: ApiKeyService;
  audit: AuditLogService;
  indexes: SearchIndexService;
  idempotency: IdempotencyService;
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
  // One memory of verified keys: deleting an API key must drop what authentication remembers.
  const verified = new VerifiedCredentials(clock);
  return {
    accounts: new AccountService(store, {
      clock,
      messagingDefaultPlan: config.messagingDefaultPlan,
      cache,
      verified,
    }),
    apiKeys: new ApiKeyService(store, { clock, indexes, verified }),
    audit: new AuditLogService(store, { clock, retentionMs: config.auditRetentionDays * 86_400_000 }),
    indexes,
    idempotency: new IdempotencyService(store, clock),
    messaging: new MessagingService(store),
    readiness: new ReadinessService(() => store.ping()),
    stats: new UsageStatsService(indexes, usage, clock, data),
    usage,
  };
}
