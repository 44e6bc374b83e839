import { randomUUID } from 'node:crypto';
import { AppError, errors } from '../errors.js';
import type { Store } from '../store/database.js';
import { isUniqueViolation } from '../store/database.js';
import type { ReadCache } from '../store/read-cache.js';
import { findAccount, lockAccount } from '../store/repositories/account.repository.js';
import type { SearchIndexRow } from '../store/repositories/search-index.repository.js';
import * as repo from '../store/repositories/search-index.repository.js';
import { boundedCache } from './bounded-cache.js';
import { type Clock, formatSeriesTime } from './clock.js';
import { generateEndpointName } from './endpoint-names.js';
import { DEFAULT_PAGE_LIMIT, type Page, type PageRequest, readPage } from './paging.js';
import { type PlanName, type PlanTable, type Quotas, quotasOf } from './plans.js';
import { randomSecret } from './secrets.js';
import type { UsageMeter } from './usage-meter.service.js';

export interface ThroughputPoint {
  x: string;
  y: number;
}

/** Points in a record's `throughput_vector`: the last hour, one per UTC minute. */
export const SERIES_POINTS = 60;
/**
 * How long a computed `throughput_vector` is reused: a client polling a record many times a
 * second reads usage once a second, and traffic shows at most this much later.
 */
export const SERIES_TTL_MS = 1000;

export const REGIONS = ['eu-west-1', 'us-central1'] as const;
export type Region = (typeof REGIONS)[number];
export const INDEX_NAME_PATTERN = '^[A-Za-z0-9_.-]{1,64}$';
const INDEX_NAME = new RegExp(INDEX_NAME_PATTERN);
/** The longest grace period of a token rotation: a day, to roll a fleet's clients over. */
export const MAX_TOKEN_GRACE_SECONDS = 86_400;

export interface SearchIndexRecord extends Quotas {
  customer_id: string;
  id: string;
  name: string;
  endpoint: string;
  type: PlanName;
  region: Region;
  integration_email: string;
  token: string;
  read_only_token: string;
  creation_time: number;
  input_enrichment_enabled: boolean;
  throughput_vector: ThroughputPoint[];
}

export interface CreateIndexInput {
  name: string;
  region: Region;
  type: PlanName;
}

export interface IndexDataSummary {
  vectorCount: number;
  pendingVectorCount: number;
  storageBytes: number;
}

/** The management plane's view of an index's documents, provided by the data plane. */
export interface IndexDataLifecycle {
  /** Removes the documents of a deleted index. */
  dropIndexData(indexId: string): Promise<void>;
  describeIndexData(indexId: string): Promise<IndexDataSummary>;
}

export interface SearchIndexServiceOptions {
  clock: Clock;
  plans: PlanTable;
  freeIndexLimit: number;
  usage: UsageMeter;
  data?: IndexDataLifecycle;
  /** Caches index lookups by id and endpoint (the hot reads of both planes). */
  cache: ReadCache;
}

const ENDPOINT_ATTEMPTS = 8;

/** Search index records: creation under plan rules, ownership, tokens and throughput. */
export class SearchIndexService {
  /** Computed series by index id: at most one per index of the last 2,000 read, each for a second. */
  private readonly series;

  constructor(
    private readonly store: Store,
    private readonly options: SearchIndexServiceOptions,
  ) {
    this.series = boundedCache<string, ThroughputPoint[]>({ max: 2000, ttl: SERIES_TTL_MS, clock: options.clock });
  }

  async create(customerId: string, input: CreateIndexInput): Promise<SearchIndexRecord> {
    assertName(input.name);
    const plan = this.options.plans[input.type];
    if (!plan.available) {
      throw new AppError('plan_unavailable', `The "${input.type}" plan is not available; use "free" or "payg"`, {
        details: [{ field: 'type', message: 'plan not available', allowed: availablePlans(this.options.plans) }],
      });
    }
    for (let attempt = 1; ; attempt++) {
      const row: SearchIndexRow = {
        id: randomUUID(),
        customer_id: customerId,
        name: input.name,
        endpoint: generateEndpointName(input.region),
        type: input.type,
        region: input.region,
        integration_email: '',
        token: randomSecret(),
        read_only_token: randomSecret(),
        ...quotasOf(plan),
        creation_time: Math.floor(this.options.clock() / 1000),
        input_enrichment_enabled: 1,
      };
      try {
        if (input.type === 'free' && this.options.freeIndexLimit >= 0) await this.insertFree(customerId, row);
        // The unique (customer, name) constraint is the name check: one statement, no race.
        else await repo.insertSearchIndex(this.store.db, row);
        return recordOf(row, zeroThroughput(this.options.clock()));
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // Either the name is taken or the random endpoint collided; only the latter is retried.
        if (await repo.findOwnedSearchIndexByName(this.store.db, customerId, input.name)) throw nameTaken(input.name);
        if (attempt >= ENDPOINT_ATTEMPTS) throw error;
      }
    }
  }

  /** Inserts a free index unless the account already has its allowance of them. */
  private async insertFree(customerId: string, row: SearchIndexRow): Promise<void> {
    const limit = this.options.freeIndexLimit;
    await this.store.db.transaction().execute(async (trx) => {
      // Serialises concurrent creates of one account so the count below stays true.
      await lockAccount(trx, customerId, this.store.dialect);
      if ((await repo.countSearchIndexesOfType(trx, customerId, 'free')) >= limit) {
        throw new AppError('free_index_limit', `An account may have at most ${limit} free index(es)`);
      }
      await repo.insertSearchIndex(trx, row);
    });
  }

  /** An owned index's record, its throughput included. */
  async get(customerId: string, id: string): Promise<SearchIndexRecord> {
    const row = await this.requireOwned(customerId, id);
    return recordOf(row, await this.throughput(row.id));
  }

  /**
   * The account's indexes (only those of `onlyIds` when given: a key limited to some indexes),
   * all of them, or one page when `page` asks for paging.
   */
  async list(customerId: string, onlyIds?: readonly string[] | null): Promise<SearchIndexRecord[]>;
  async list(
    customerId: string,
    onlyIds: readonly string[] | null,
    page: PageRequest,
  ): Promise<Page<SearchIndexRecord>>;
  async list(
    customerId: string,
    onlyIds: readonly string[] | null = null,
    page?: PageRequest,
  ): Promise<SearchIndexRecord[] | Page<SearchIndexRecord>> {
    const records = (rows: SearchIndexRow[]) =>
      Promise.all(rows.map(async (row) => recordOf(row, await this.throughput(row.id))));
    if (page === undefined) return records(await repo.listSearchIndexes(this.store.db, customerId, { onlyIds }));
    const rows = await readPage(
      page,
      DEFAULT_PAGE_LIMIT,
      (after, limit) => repo.listSearchIndexes(this.store.db, customerId, { onlyIds, after, limit }),
      (row) => [Number(row.creation_time), row.name] as const,
    );
    return { data: await records(rows.data), next_cursor: rows.next_cursor };
  }

  /**
   * The index behind a data-plane endpoint, or undefined. On PostgreSQL the row carries
   * `record_head`, its data's last change number read in the same query (never cached there).
   */
  findByEndpoint(endpoint: string): Promise<(SearchIndexRow & { record_head?: number }) | undefined> {
    if (this.store.dialect === 'postgres') return repo.findSearchIndexWithHeadByEndpoint(this.store, endpoint);
    return this.options.cache.get(`index-endpoint:${endpoint}`, () =>
      repo.findSearchIndexByEndpoint(this.store.db, endpoint),
    );
  }

  async rename(customerId: string, id: string, name: string): Promise<void> {
    assertName(name);
    try {
      const updated = await repo.updateOwnedSearchIndex(this.store.db, customerId, id, { name });
      if (!updated) throw errors.indexNotFound();
    } catch (error) {
      if (isUniqueViolation(error)) throw nameTaken(name);
      throw error;
    }
  }

  /**
   * Replaces both tokens. The old ones stop working with the next request, or, with
   * `graceSeconds`, once that many seconds have passed (tokens replaced by an earlier rotation
   * stop at once).
   */
  async resetPassword(customerId: string, id: string, graceSeconds = 0): Promise<void> {
    const tokens = { token: randomSecret(), read_only_token: randomSecret() };
    const graceUntil = graceSeconds > 0 ? this.options.clock() + graceSeconds * 1000 : null;
    const updated = await repo.rotateOwnedSearchIndexTokens(this.store.db, customerId, id, tokens, graceUntil);
    if (!updated) throw errors.indexNotFound();
  }

  /**
   * Gives an owned index, with its documents, tokens and usage (all kept by index id), to another
   * account of this server; the old owner finds it no more. The target must not have an index of
   * the same name (409), nor, for a free index, its allowance of free indexes already.
   */
  async transfer(customerId: string, id: string, targetAccount: string): Promise<void> {
    const row = await this.requireOwned(customerId, id);
    if (targetAccount === customerId) {
      throw errors.invalidRequest('The index already belongs to this account', [
        { field: 'target_account', message: 'must be another account' },
      ]);
    }
    const limit = this.options.freeIndexLimit;
    try {
      await this.store.db.transaction().execute(async (trx) => {
        if (!(await findAccount(trx, targetAccount))) {
          throw new AppError('account_not_found', `No account ${targetAccount} on this server`);
        }
        if (row.type === 'free' && limit >= 0) {
          await lockAccount(trx, targetAccount, this.store.dialect);
          if ((await repo.countSearchIndexesOfType(trx, targetAccount, 'free')) >= limit) {
            throw new AppError('free_index_limit', `${targetAccount} already has ${limit} free index(es)`);
          }
        }
        if (!(await repo.moveOwnedSearchIndex(trx, customerId, id, targetAccount))) throw errors.indexNotFound();
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new AppError('index_name_taken', `${targetAccount} already has an index named "${row.name}"`);
      }
      throw error;
    }
  }

  /** Deletes the record, then its usage and its documents. */
  async delete(customerId: string, id: string): Promise<void> {
    const deleted = await repo.deleteOwnedSearchIndex(this.store.db, customerId, id);
    if (!deleted) throw errors.indexNotFound();
    this.series.delete(id);
    await this.options.usage.discard(id);
    await this.options.data?.dropIndexData(id);
  }

  async requireOwned(customerId: string, id: string): Promise<SearchIndexRow> {
    // By id alone, so the cache key is the id as given; another account's index reads as missing.
    const row = await this.options.cache.get(`index:${id}`, () => repo.findSearchIndexById(this.store.db, id));
    if (row?.customer_id !== customerId) throw errors.indexNotFound();
    return row;
  }

  /**
   * The last 60 minutes, one point per minute, oldest first; y = data-plane requests, this node's
   * unflushed ones included, as of at most {@link SERIES_TTL_MS} ago.
   */
  async throughput(indexId: string): Promise<ThroughputPoint[]> {
    const kept = this.series.get(indexId);
    if (kept !== undefined) return kept;
    const nowSeconds = Math.floor(this.options.clock() / 1000);
    const first = nowSeconds - (nowSeconds % 60) - (SERIES_POINTS - 1) * 60;
    const byMinute = await this.options.usage.buckets([indexId], first, first + SERIES_POINTS * 60, 60);
    const points = Array.from({ length: SERIES_POINTS }, (_, i) => {
      const counters = byMinute.get(first + i * 60);
      return { x: formatSeriesTime(first + i * 60), y: counters ? counters.queries + counters.updates : 0 };
    });
    this.series.set(indexId, points);
    return points;
  }
}

/**
 * The record of a stored row, in the API's field order (the response schema's). One literal, so
 * that every record has the same shape: records built by copying objects into each other get a
 * new hidden class each time, and then every property read of them, the serializer's included,
 * takes V8's slow path.
 */
export function recordOf(row: SearchIndexRow, throughput: ThroughputPoint[]): SearchIndexRecord {
  return {
    customer_id: row.customer_id,
    id: row.id,
    name: row.name,
    endpoint: row.endpoint,
    type: row.type as PlanName,
    region: row.region as Region,
    integration_email: row.integration_email,
    token: row.token,
    read_only_token: row.read_only_token,
    max_vector_count: Number(row.max_vector_count),
    max_monthly_reranks: Number(row.max_monthly_reranks),
    max_daily_updates: Number(row.max_daily_updates),
    max_daily_queries: Number(row.max_daily_queries),
    max_monthly_bandwidth: Number(row.max_monthly_bandwidth),
    max_writes_per_second: Number(row.max_writes_per_second),
    max_query_per_second: Number(row.max_query_per_second),
    max_reads_per_request: Number(row.max_reads_per_request),
    max_writes_per_request: Number(row.max_writes_per_request),
    creation_time: Number(row.creation_time),
    input_enrichment_enabled: Number(row.input_enrichment_enabled) === 1,
    throughput_vector: throughput,
  };
}

/** The series of an index that has seen no traffic yet. */
function zeroThroughput(nowMs: number): ThroughputPoint[] {
  const nowSeconds = Math.floor(nowMs / 1000);
  const first = nowSeconds - (nowSeconds % 60) - (SERIES_POINTS - 1) * 60;
  return Array.from({ length: SERIES_POINTS }, (_, i) => ({ x: formatSeriesTime(first + i * 60), y: 0 }));
}

function availablePlans(plans: PlanTable): PlanName[] {
  return (Object.keys(plans) as PlanName[]).filter((name) => plans[name].available);
}

function nameTaken(name: string): AppError {
  return new AppError('index_name_taken', `You already have an index named "${name}"`);
}

function assertName(name: string): void {
  if (!INDEX_NAME.test(name)) {
    throw errors.invalidRequest('name must be 1-64 characters of letters, digits, "-", "_" or "."', [
      { field: 'name', message: `must match ${INDEX_NAME_PATTERN}` },
    ]);
  }
}
