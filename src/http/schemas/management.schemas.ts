import { Type } from 'typebox';
import { MESSAGING_PLANS, MESSAGING_REGIONS } from '../../services/messaging.service.js';
import { PLAN_NAMES } from '../../services/plans.js';
import { INDEX_NAME_PATTERN, REGIONS } from '../../services/search-index.service.js';
import { STATS_PERIODS } from '../../services/usage-stats.service.js';
import { StringEnum } from './common.schemas.js';

const Int = (description: string) => Type.Integer({ description });

export const ThroughputPointSchema = Type.Object(
  {
    x: Type.String({ description: 'Timestamp, e.g. "2026-11-22 14:05:00.000 +0000 UTC"' }),
    y: Type.Number(),
  },
  { $id: 'TimeSeriesData', title: 'TimeSeriesData' },
);
const Series = Type.Array(Type.Ref('TimeSeriesData'));

export const SearchIndexSchema = Type.Object(
  {
    customer_id: Type.String({ description: 'Email of the owning account' }),
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    endpoint: Type.String({ description: 'REST endpoint name of the index' }),
    type: StringEnum(PLAN_NAMES),
    region: StringEnum(REGIONS),
    integration_email: Type.String({ description: 'Hosting-platform integration email; "" when none' }),
    token: Type.String({ description: 'Read-write data-plane token' }),
    read_only_token: Type.String({ description: 'Read-only data-plane token' }),
    max_vector_count: Int('Maximum documents in the index'),
    max_monthly_reranks: Int('Maximum reranks per month; -1 unlimited'),
    max_daily_updates: Int('Maximum updates per UTC day; -1 unlimited'),
    max_daily_queries: Int('Maximum queries per UTC day; -1 unlimited'),
    max_monthly_bandwidth: Int('Maximum bytes per month; -1 unlimited'),
    max_writes_per_second: Int('Write rate limit'),
    max_query_per_second: Int('Query rate limit'),
    max_reads_per_request: Int('Maximum reads in one request'),
    max_writes_per_request: Int('Maximum writes in one request'),
    creation_time: Int('Unix seconds'),
    input_enrichment_enabled: Type.Boolean(),
    throughput_vector: Series,
  },
  { $id: 'SearchIndex', title: 'SearchIndex' },
);

export const CreateSearchIndexBody = Type.Object({
  name: Type.String({ pattern: INDEX_NAME_PATTERN, description: '1-64 letters, digits, "-", "_", "."' }),
  region: StringEnum(REGIONS),
  type: StringEnum(PLAN_NAMES, { description: 'Currently "free" and "payg" are available' }),
});

export const RenameBody = Type.Object({
  name: Type.String({ pattern: INDEX_NAME_PATTERN }),
});

export const StatsQuery = Type.Object({
  period: Type.Optional(StringEnum(STATS_PERIODS, { default: '1h' })),
});

export const IndexStatsSchema = Type.Object(
  {
    current_vector_count: Type.Integer(),
    pending_index_count: Type.Integer(),
    daily_query_count: Type.Integer(),
    daily_update_count: Type.Integer(),
    monthly_query_count: Type.Integer(),
    monthly_update_count: Type.Integer(),
    monthly_bandwidth_usage: Type.Integer(),
    monthly_rerank_count: Type.Integer(),
    storage_usage: Type.Integer(),
    query_throughput: Series,
    update_throughput: Series,
    bandwidth_throughput: Type.Array(Type.Ref('TimeSeriesData'), {
      description: 'Request and response bytes per bucket of the period (same buckets as query_throughput)',
    }),
    days: Type.Array(Type.String()),
    daily_query_requests: Series,
    daily_update_requests: Series,
    daily_bandwidths: Series,
  },
  { $id: 'SearchIndexStats', title: 'SearchIndexStats' },
);

export const AccountStatsSchema = Type.Object(
  {
    record_count: Type.Integer({ description: 'Documents in all indexes' }),
    request: Type.Integer({ description: 'Data-plane requests this UTC month' }),
    bandwidth: Type.Integer({ description: 'Bytes this UTC month' }),
    storage: Type.Integer({ description: 'Bytes on disk' }),
    rerank_count: Type.Integer({ description: 'Reranks this UTC month' }),
  },
  { $id: 'SearchAccountStats', title: 'SearchAccountStats' },
);

export const MessagingInstanceSchema = Type.Object(
  {
    customer_id: Type.String(),
    id: Type.String({ format: 'uuid' }),
    region: StringEnum(MESSAGING_REGIONS),
    type: StringEnum(MESSAGING_PLANS),
    token: Type.String(),
    read_only_token: Type.String(),
    active: Type.Boolean(),
    state: Type.String(),
    prod_pack_enabled: Type.Boolean(),
    creation_time: Type.Integer(),
  },
  { $id: 'MessagingInstance', title: 'MessagingInstance' },
);

export const SetPlanBody = Type.Object({ plan_name: StringEnum(MESSAGING_PLANS) });

/** Every shared schema, registered once with addSchema so routes can $ref them. */
export const MANAGEMENT_SHARED_SCHEMAS = [
  ThroughputPointSchema,
  SearchIndexSchema,
  IndexStatsSchema,
  AccountStatsSchema,
  MessagingInstanceSchema,
];
