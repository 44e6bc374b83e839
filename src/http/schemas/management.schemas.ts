import { type TSchema, Type } from 'typebox';
import { API_KEY_NAME_PATTERN } from '../../services/api-key.service.js';
import { AUDIT_ACTIONS } from '../../services/audit-log.service.js';
import { GRANTS } from '../../services/key-actions.js';
import { MESSAGING_PLANS, MESSAGING_REGIONS } from '../../services/messaging.service.js';
import { MAX_PAGE_LIMIT } from '../../services/paging.js';
import { PLAN_NAMES } from '../../services/plans.js';
import { INDEX_NAME_PATTERN, MAX_TOKEN_GRACE_SECONDS, REGIONS } from '../../services/search-index.service.js';
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

export const ResetPasswordBody = Type.Object(
  {
    grace_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_TOKEN_GRACE_SECONDS,
        default: 0,
        description: 'Seconds the old tokens keep working (0: they stop at once)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const TransferBody = Type.Object(
  { target_account: Type.String({ minLength: 1, maxLength: 320, description: 'Email of the receiving account' }) },
  { additionalProperties: false },
);

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

const ApiKeyFields = {
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  actions: Type.Array(Type.String(), { description: 'Actions granted; `*` and `<group>.*` are wildcards' }),
  indexes: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'Index ids the key is limited to; null for every index of the account',
  }),
  expires_at: Type.Union([Type.Integer(), Type.Null()], { description: 'Unix seconds; null for never' }),
  created_at: Type.Integer({ description: 'Unix seconds' }),
};

export const ApiKeySchema = Type.Object(ApiKeyFields, { $id: 'ApiKey', title: 'ApiKey' });

export const CreatedApiKeySchema = Type.Object(
  {
    ...ApiKeyFields,
    key: Type.String({ description: 'The secret, shown only in this answer: use it as the Basic password' }),
  },
  { $id: 'CreatedApiKey', title: 'CreatedApiKey' },
);

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ pattern: API_KEY_NAME_PATTERN, description: '1-64 letters, digits, "-", "_", "."' }),
    actions: Type.Array(StringEnum(GRANTS), { minItems: 1, maxItems: 64 }),
    indexes: Type.Optional(
      Type.Union([Type.Array(Type.String({ maxLength: 64 }), { maxItems: 1000 }), Type.Null()], {
        description: 'Limit the key to these index ids (omit or null for every index)',
      }),
    ),
    expires_at: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: 253402300799 }), Type.Null()], {
        description: 'Unix seconds after which the key is refused (omit or null for never)',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * `limit` and `cursor` of a paged list; query strings are not coerced, so `limit` is digits.
 * Either one asks for a page (`{data, next_cursor}`) instead of the whole list.
 */
export const PageQuery = Type.Object({
  limit: Type.Optional(
    Type.String({ pattern: '^[1-9][0-9]{0,3}$', description: `Items per page, 1-${MAX_PAGE_LIMIT}` }),
  ),
  cursor: Type.Optional(
    Type.String({ maxLength: 1024, description: 'The next_cursor of the previous page; omit for the first' }),
  ),
});

/** A page of `item`s: the answer of a list asked for with `limit` or `cursor`. */
export function PageOf(item: TSchema, description: string) {
  return Type.Object(
    {
      data: Type.Array(item),
      next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'null after the last page' }),
    },
    { description },
  );
}

/** A list route's answer: every `item` (without `limit` or `cursor`) or one page of them. */
export function ListOrPage(item: TSchema, plural: string) {
  return Type.Union([
    Type.Array(item, { description: `Every ${plural}, without limit or cursor` }),
    PageOf(item, `One page of ${plural}, with limit or cursor`),
  ]);
}

export const AuditEntrySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    time: Type.Integer({ description: 'Unix milliseconds' }),
    account: Type.String({ description: 'Email of the account' }),
    key_id: Type.Union([Type.String(), Type.Null()], { description: "The API key's id; null for the account key" }),
    key_name: Type.String({ description: 'The API key\'s name; "account" for the account key' }),
    request_id: Type.String({ description: 'x-request-id of the request' }),
    client_address: Type.String(),
    action: StringEnum(AUDIT_ACTIONS),
    target: Type.Union([Type.String(), Type.Null()], { description: 'Id of the index, messaging instance or key' }),
    details: Type.Unknown({ description: 'The request body, if any (never a secret)' }),
  },
  { $id: 'AuditEntry', title: 'AuditEntry' },
);

const UnixMs = (description: string) => Type.String({ pattern: '^[0-9]{1,15}$', description });

export const AuditLogQuery = Type.Object({
  from: Type.Optional(UnixMs('Entries at or after this time, Unix milliseconds')),
  to: Type.Optional(UnixMs('Entries before this time, Unix milliseconds')),
  ...PageQuery.properties,
});

/** Every shared schema, registered once with addSchema so routes can $ref them. */
export const MANAGEMENT_SHARED_SCHEMAS = [
  ThroughputPointSchema,
  SearchIndexSchema,
  IndexStatsSchema,
  AccountStatsSchema,
  MessagingInstanceSchema,
  ApiKeySchema,
  CreatedApiKeySchema,
  AuditEntrySchema,
];
