import type { Generated } from 'kysely';

/**
 * Table types for Kysely. Booleans are stored as 0/1 integers in both dialects so one set of
 * migrations and queries serves SQLite and PostgreSQL; repositories convert at the edge.
 */
export interface AccountsTable {
  email: string;
  api_key_hash: string;
  created_at: number;
}

export interface SearchIndexesTable {
  id: string;
  customer_id: string;
  name: string;
  endpoint: string;
  type: string;
  region: string;
  integration_email: string;
  token: string;
  read_only_token: string;
  max_vector_count: number;
  max_monthly_reranks: number;
  max_daily_updates: number;
  max_daily_queries: number;
  max_monthly_bandwidth: number;
  max_writes_per_second: number;
  max_query_per_second: number;
  max_reads_per_request: number;
  max_writes_per_request: number;
  creation_time: number;
  input_enrichment_enabled: number;
  /** The tokens a rotation with a grace period replaced (null or absent: none). */
  previous_token?: string | null;
  previous_read_only_token?: string | null;
  /** Unix ms until which the previous tokens still open the data plane. */
  previous_tokens_expire_at?: number | null;
}

export interface MessagingInstancesTable {
  id: string;
  customer_id: string;
  region: string;
  type: string;
  token: string;
  read_only_token: string;
  active: number;
  state: string;
  prod_pack_enabled: number;
  creation_time: number;
}

export interface UsageMinutesTable {
  index_id: string;
  /** Unix seconds at the start of the UTC minute. */
  minute: number;
  queries: number;
  updates: number;
  bandwidth: number;
  reranks: number;
}

/** PostgreSQL only (0005): one row per index holding data. */
export interface IndexHeadsTable {
  index_id: string;
  seq: Generated<number>;
  document_count: Generated<number>;
  stored_bytes: Generated<number>;
  /** Changes at or below this were pruned from index_changes; older replicas rebuild. */
  pruned_seq: Generated<number>;
  embedder: string | null;
  dimensions: number | null;
}

/** PostgreSQL only (0005): the current version of each document. */
export interface IndexDocumentsTable {
  index_id: string;
  namespace: string;
  id: string;
  seq: number;
  content: string;
  metadata: string | null;
  /** Little-endian float32, L2-normalized. */
  vector: Buffer;
}

/** PostgreSQL only (0005): removals (`delete`, `reset`, `drop-namespace`), in the index's change order. */
export interface IndexChangesTable {
  index_id: string;
  seq: number;
  kind: string;
  namespace: string;
  id: string | null;
  created_at: number;
}

export interface IndexNamespacesTable {
  index_id: string;
  namespace: string;
}

/** PostgreSQL only (0005): requests admitted per key and one-second window, across nodes. */
export interface RateWindowsTable {
  key: string;
  window_start: number;
  used: number;
}

export interface ApiKeysTable {
  id: string;
  account_email: string;
  name: string;
  key_hash: string;
  /** JSON array of grants (`indexes.read`, `indexes.*`, `*`). */
  actions: string;
  /** JSON array of index ids the key is limited to; null for every index of the account. */
  index_ids: string | null;
  /** Unix seconds after which the key is refused; null for never. */
  expires_at: number | null;
  created_at: number;
}

export interface IdempotencyKeysTable {
  account_email: string;
  key: string;
  /** SHA-256 of the request (method, route, parameters, body) the key was first used with. */
  fingerprint: string;
  /** The first answer's status and body; null while that request runs. */
  status: number | null;
  body: string | null;
  /** Unix milliseconds. */
  created_at: number;
}

export interface AuditLogTable {
  id: string;
  account_email: string;
  /** Unix milliseconds. */
  time: number;
  /** The API key's id; null for the account's own key. */
  key_id: string | null;
  key_name: string;
  request_id: string;
  client_address: string;
  /** What was done, e.g. `index.create`. */
  action: string;
  /** The id of what it was done to (an index, a messaging instance, a key). */
  target: string | null;
  /** JSON of the request's body (never a secret: no audited request sends one). */
  details: string | null;
}

export interface DB {
  audit_log: AuditLogTable;
  idempotency_keys: IdempotencyKeysTable;
  api_keys: ApiKeysTable;
  accounts: AccountsTable;
  search_indexes: SearchIndexesTable;
  messaging_instances: MessagingInstancesTable;
  usage_minutes: UsageMinutesTable;
  index_heads: IndexHeadsTable;
  index_documents: IndexDocumentsTable;
  index_changes: IndexChangesTable;
  index_namespaces: IndexNamespacesTable;
  rate_windows: RateWindowsTable;
}
