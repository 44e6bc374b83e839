import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { mergePlans, type PlanName, type PlanTable } from './services/plans.js';
import { parsePostgresUrl } from './store/pg-hosts.js';

/**
 * Configuration is read once at start from flags (highest precedence) and environment,
 * validated as a whole, and passed down. Nothing else in the code reads process.env.
 */
export interface EmbeddingsConfig {
  provider: 'builtin' | 'openai' | 'onnx';
  url?: string;
  model?: string;
  apiKey?: string;
  dimensions?: number;
  batchSize: number;
  timeoutMs: number;
  retries: number;
  // --- onnx provider (in-process model) ---
  /** Where a model given by id is looked for and downloaded to; default `<data dir>/models`. */
  cacheDir: string;
  /** Inputs are truncated to this many tokens. */
  maxTokens: number;
  /** `onnx/model_quantized.onnx` rather than `onnx/model.onnx`. */
  quantized: boolean;
  /** How token vectors become one: `mean` (MiniLM, e5, gte) or `cls` (bge). */
  pooling: 'mean' | 'cls';
}

export interface HttpServiceConfig {
  url?: string;
  model?: string;
  apiKey?: string;
  timeoutMs: number;
}

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl?: string;
  /** PostgreSQL session bounds, in ms (0: none): lock waits, statements, idle transactions. */
  postgres: { lockTimeoutMs: number; statementTimeoutMs: number; idleTransactionTimeoutMs: number };
  logLevel: string;
  adminEmail?: string;
  adminApiKey?: string;
  plansFile?: string;
  plans: PlanTable;
  /** Free indexes one account may own; -1 for unlimited. */
  freeIndexLimit: number;
  messagingDefaultPlan: 'free' | 'paid';
  /** Failed management logins per (account, address) per minute before 429 (see login-throttle.ts). */
  authFailureLimit: number;
  /** Fastify `trustProxy`: whether and which proxies' `X-Forwarded-For` gives the client address. */
  trustProxy: TrustProxy;
  /** Public base URL used to print index URLs; defaults to http://host:port. */
  publicUrl?: string;
  /** Host-based data plane: `{endpoint}.{dataDomain}`. */
  dataDomain?: string;
  bodyLimitBytes: number;
  /** Memory (bytes) that reads may hold for their documents at once, until their answers are sent. */
  readBufferBytes: number;
  /** Time an answer holding read memory has to reach a client that reads slowly, before its connection is closed. */
  readAnswerTimeoutMs: number;
  /** Time for a request to arrive whole (its headers: at most 60 s of it) before 408 and a close. */
  requestTimeoutMs: number;
  meteringFlushMs: number;
  /** Indexes kept open on this node while idle (file descriptors, memory). */
  maxOpenIndexes: number;
  /** Worker threads holding vector graphs; each namespace has one graph segment per worker. */
  vectorWorkers?: number;
  /** Worker threads holding the full-text indexes; each namespace has one shard per thread. */
  textShards?: number;
  /** Documents per index acknowledged before their vectors are made, at most (0: make them before acknowledging). */
  indexingBacklog: number;
  /** HNSW graph parameters (engine defaults when unset). */
  hnsw: { m?: number; efConstruction?: number; efSearch?: number };
  embeddings: EmbeddingsConfig;
  rerank: HttpServiceConfig;
  enrichment: HttpServiceConfig;
  /** Bearer token `GET /metrics` requires; unset = open. */
  metricsToken?: string;
  /** Browser origins allowed to call the data plane (CORS); `['*']` = any, `[]` = no CORS headers. */
  corsOrigins: string[];
  /** Days audit log entries are kept. */
  auditRetentionDays: number;
}

/** `false`, `true` (any proxy), a hop count, or the addresses/CIDRs of trusted proxies. */
export type TrustProxy = boolean | number | string[];

/** Flags as commander hands them over (camelCase, strings). */
export interface ConfigFlags {
  host?: string;
  port?: string | number;
  dataDir?: string;
  databaseUrl?: string;
  plansFile?: string;
  logLevel?: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Parses and validates flags + env; throws ConfigError listing every problem at once. */
export function loadConfig(flags: ConfigFlags = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const str = (flag: string | undefined, name: string): string | undefined => {
    const value = flag ?? env[name];
    return value === undefined || value === '' ? undefined : value;
  };
  const int = (raw: string | number | undefined, name: string, fallback: number, min: number, max: number) => {
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const optionalInt = (raw: string | undefined, name: string, min: number, max: number) =>
    raw === undefined || raw === '' ? undefined : int(raw, name, min, min, max);
  const oneOf = <T extends string>(raw: string | undefined, name: string, allowed: readonly T[], fallback: T): T => {
    if (raw === undefined) return fallback;
    if (!allowed.includes(raw as T)) {
      problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
      return fallback;
    }
    return raw as T;
  };
  const url = (raw: string | undefined, name: string, protocols: string[]) => {
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) problems.push(`${name} must use ${protocols.join(' or ')}`);
    } catch {
      problems.push(`${name} is not a valid URL`);
    }
    return raw;
  };
  const bool = (raw: string | undefined, name: string, fallback: boolean) => {
    if (raw === undefined || raw === '') return fallback;
    if (/^(true|1|yes)$/i.test(raw)) return true;
    if (/^(false|0|no)$/i.test(raw)) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };

  const host = str(flags.host, 'HOST') ?? '127.0.0.1';
  const port = int(flags.port ?? env.PORT, 'PORT (--port)', 8080, 0, 65535);
  const dataDir = path.resolve(str(flags.dataDir, 'SEARCHPLANE_DATA_DIR') ?? './data');
  const databaseUrl = postgresUrl(str(flags.databaseUrl, 'DATABASE_URL'), problems);
  const logLevel = oneOf(str(flags.logLevel, 'LOG_LEVEL'), 'LOG_LEVEL', LOG_LEVELS, 'info');
  const adminEmail = str(undefined, 'SEARCHPLANE_ADMIN_EMAIL');
  const adminApiKey = str(undefined, 'SEARCHPLANE_ADMIN_API_KEY');
  if ((adminEmail === undefined) !== (adminApiKey === undefined)) {
    problems.push('SEARCHPLANE_ADMIN_EMAIL and SEARCHPLANE_ADMIN_API_KEY must be set together');
  }
  if (adminApiKey !== undefined && adminApiKey.length < 16) {
    problems.push('SEARCHPLANE_ADMIN_API_KEY must be at least 16 characters');
  }

  const plansFile = str(flags.plansFile, 'SEARCHPLANE_PLANS_FILE');
  let plans = mergePlans(undefined);
  if (plansFile !== undefined) {
    try {
      plans = mergePlans(JSON.parse(readFileSync(plansFile, 'utf8')));
    } catch (error) {
      problems.push(`SEARCHPLANE_PLANS_FILE (--plans-file) ${plansFile}: ${(error as Error).message}`);
    }
  }

  const provider = oneOf(
    str(undefined, 'SEARCHPLANE_EMBEDDINGS_PROVIDER'),
    'SEARCHPLANE_EMBEDDINGS_PROVIDER',
    ['builtin', 'openai', 'onnx'] as const,
    str(undefined, 'SEARCHPLANE_EMBEDDINGS_URL') ? 'openai' : 'builtin',
  );
  const embeddingsUrl = url(str(undefined, 'SEARCHPLANE_EMBEDDINGS_URL'), 'SEARCHPLANE_EMBEDDINGS_URL', [
    'http:',
    'https:',
  ]);
  if (provider === 'openai' && embeddingsUrl === undefined) {
    problems.push('SEARCHPLANE_EMBEDDINGS_URL is required when SEARCHPLANE_EMBEDDINGS_PROVIDER=openai');
  }
  const dimensionsRaw = str(undefined, 'SEARCHPLANE_EMBEDDINGS_DIMENSIONS');
  // --- onnx provider ---
  const embeddingsModel = str(undefined, 'SEARCHPLANE_EMBEDDINGS_MODEL');
  if (provider === 'onnx' && embeddingsModel === undefined) {
    problems.push(
      'SEARCHPLANE_EMBEDDINGS_MODEL (a model directory or a model id) is required when SEARCHPLANE_EMBEDDINGS_PROVIDER=onnx',
    );
  }
  if (provider === 'onnx' && dimensionsRaw !== undefined) {
    problems.push(
      'SEARCHPLANE_EMBEDDINGS_DIMENSIONS cannot be set with SEARCHPLANE_EMBEDDINGS_PROVIDER=onnx (the model fixes it)',
    );
  }
  const embeddingsCacheDir = path.resolve(
    str(undefined, 'SEARCHPLANE_EMBEDDINGS_CACHE_DIR') ?? path.join(dataDir, 'models'),
  );

  const httpService = (prefix: string): HttpServiceConfig => ({
    url: url(str(undefined, `${prefix}_URL`), `${prefix}_URL`, ['http:', 'https:']),
    model: str(undefined, `${prefix}_MODEL`),
    apiKey: str(undefined, `${prefix}_API_KEY`),
    timeoutMs: int(env[`${prefix}_TIMEOUT_MS`], `${prefix}_TIMEOUT_MS`, 10_000, 100, 600_000),
  });

  const config: Config = {
    host,
    port,
    dataDir,
    databaseUrl,
    postgres: {
      lockTimeoutMs: int(env.SEARCHPLANE_PG_LOCK_TIMEOUT_MS, 'SEARCHPLANE_PG_LOCK_TIMEOUT_MS', 5000, 0, 3_600_000),
      statementTimeoutMs: int(
        env.SEARCHPLANE_PG_STATEMENT_TIMEOUT_MS,
        'SEARCHPLANE_PG_STATEMENT_TIMEOUT_MS',
        10_000,
        0,
        3_600_000,
      ),
      idleTransactionTimeoutMs: int(
        env.SEARCHPLANE_PG_IDLE_TRANSACTION_TIMEOUT_MS,
        'SEARCHPLANE_PG_IDLE_TRANSACTION_TIMEOUT_MS',
        5000,
        0,
        3_600_000,
      ),
    },
    logLevel,
    adminEmail,
    adminApiKey,
    plansFile,
    plans,
    freeIndexLimit: int(env.SEARCHPLANE_FREE_INDEX_LIMIT, 'SEARCHPLANE_FREE_INDEX_LIMIT', 1, -1, 1_000_000),
    messagingDefaultPlan: oneOf(
      str(undefined, 'SEARCHPLANE_MESSAGING_DEFAULT_PLAN'),
      'SEARCHPLANE_MESSAGING_DEFAULT_PLAN',
      ['free', 'paid'] as const,
      'paid',
    ),
    authFailureLimit: int(env.SEARCHPLANE_AUTH_FAILURE_LIMIT, 'SEARCHPLANE_AUTH_FAILURE_LIMIT', 20, 1, 1_000_000),
    trustProxy: parseTrustProxy(str(undefined, 'SEARCHPLANE_TRUST_PROXY'), problems),
    publicUrl: url(str(undefined, 'SEARCHPLANE_PUBLIC_URL'), 'SEARCHPLANE_PUBLIC_URL', ['http:', 'https:']),
    dataDomain: str(undefined, 'SEARCHPLANE_DATA_DOMAIN')?.replace(/^\.+/, '').toLowerCase(),
    bodyLimitBytes: int(env.SEARCHPLANE_BODY_LIMIT_BYTES, 'SEARCHPLANE_BODY_LIMIT_BYTES', 1_048_576, 1024, 1 << 30),
    readBufferBytes: int(env.SEARCHPLANE_READ_BUFFER_MB, 'SEARCHPLANE_READ_BUFFER_MB', 256, 1, 1 << 20) * 1_048_576,
    readAnswerTimeoutMs: int(
      env.SEARCHPLANE_READ_ANSWER_TIMEOUT_MS,
      'SEARCHPLANE_READ_ANSWER_TIMEOUT_MS',
      60_000,
      1000,
      3_600_000,
    ),
    requestTimeoutMs: int(
      env.SEARCHPLANE_REQUEST_TIMEOUT_MS,
      'SEARCHPLANE_REQUEST_TIMEOUT_MS',
      300_000,
      1000,
      3_600_000,
    ),
    meteringFlushMs: int(env.SEARCHPLANE_METERING_FLUSH_MS, 'SEARCHPLANE_METERING_FLUSH_MS', 1000, 10, 60_000),
    maxOpenIndexes: int(env.SEARCHPLANE_MAX_OPEN_INDEXES, 'SEARCHPLANE_MAX_OPEN_INDEXES', 64, 1, 100_000),
    vectorWorkers:
      env.SEARCHPLANE_VECTOR_WORKERS === undefined || env.SEARCHPLANE_VECTOR_WORKERS === ''
        ? undefined
        : int(env.SEARCHPLANE_VECTOR_WORKERS, 'SEARCHPLANE_VECTOR_WORKERS', 1, 1, 64),
    textShards:
      env.SEARCHPLANE_TEXT_SHARDS === undefined || env.SEARCHPLANE_TEXT_SHARDS === ''
        ? undefined
        : int(env.SEARCHPLANE_TEXT_SHARDS, 'SEARCHPLANE_TEXT_SHARDS', 1, 1, 64),
    indexingBacklog: int(env.SEARCHPLANE_INDEXING_BACKLOG, 'SEARCHPLANE_INDEXING_BACKLOG', 100_000, 0, 100_000_000),
    hnsw: {
      m: optionalInt(env.SEARCHPLANE_HNSW_M, 'SEARCHPLANE_HNSW_M', 4, 128),
      efConstruction: optionalInt(env.SEARCHPLANE_HNSW_EF_CONSTRUCTION, 'SEARCHPLANE_HNSW_EF_CONSTRUCTION', 8, 4096),
      efSearch: optionalInt(env.SEARCHPLANE_HNSW_EF_SEARCH, 'SEARCHPLANE_HNSW_EF_SEARCH', 8, 16_384),
    },
    embeddings: {
      provider,
      url: embeddingsUrl,
      model: embeddingsModel,
      apiKey: str(undefined, 'SEARCHPLANE_EMBEDDINGS_API_KEY'),
      dimensions:
        dimensionsRaw === undefined ? undefined : int(dimensionsRaw, 'SEARCHPLANE_EMBEDDINGS_DIMENSIONS', 256, 8, 8192),
      batchSize: int(env.SEARCHPLANE_EMBEDDINGS_BATCH_SIZE, 'SEARCHPLANE_EMBEDDINGS_BATCH_SIZE', 64, 1, 4096),
      timeoutMs: int(env.SEARCHPLANE_EMBEDDINGS_TIMEOUT_MS, 'SEARCHPLANE_EMBEDDINGS_TIMEOUT_MS', 30_000, 100, 600_000),
      retries: int(env.SEARCHPLANE_EMBEDDINGS_RETRIES, 'SEARCHPLANE_EMBEDDINGS_RETRIES', 3, 0, 20),
      cacheDir: embeddingsCacheDir,
      maxTokens: int(env.SEARCHPLANE_EMBEDDINGS_MAX_TOKENS, 'SEARCHPLANE_EMBEDDINGS_MAX_TOKENS', 256, 8, 8192),
      quantized: bool(env.SEARCHPLANE_EMBEDDINGS_QUANTIZED, 'SEARCHPLANE_EMBEDDINGS_QUANTIZED', true),
      pooling: oneOf(
        str(undefined, 'SEARCHPLANE_EMBEDDINGS_POOLING'),
        'SEARCHPLANE_EMBEDDINGS_POOLING',
        ['mean', 'cls'] as const,
        'mean',
      ),
    },
    rerank: httpService('SEARCHPLANE_RERANK'),
    enrichment: httpService('SEARCHPLANE_ENRICHMENT'),
    metricsToken: str(undefined, 'SEARCHPLANE_METRICS_TOKEN'),
    corsOrigins: corsOrigins(str(undefined, 'SEARCHPLANE_CORS_ORIGINS'), problems),
    auditRetentionDays: int(env.SEARCHPLANE_AUDIT_RETENTION_DAYS, 'SEARCHPLANE_AUDIT_RETENTION_DAYS', 90, 1, 36_500),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** `DATABASE_URL`: one host or several (see parsePostgresUrl). */
function postgresUrl(raw: string | undefined, problems: string[]): string | undefined {
  if (raw === undefined) return undefined;
  try {
    parsePostgresUrl(raw);
  } catch (error) {
    problems.push(`DATABASE_URL (--database-url) ${(error as Error).message}`);
  }
  return raw;
}

/**
 * `SEARCHPLANE_CORS_ORIGINS`: `*`, or comma-separated origins (`scheme://host[:port]`, no path),
 * normalized as browsers send them in `Origin` (lower-case host, no default port).
 */
function corsOrigins(raw: string | undefined, problems: string[]): string[] {
  const entries = (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.includes('*')) {
    if (entries.length > 1) problems.push('SEARCHPLANE_CORS_ORIGINS: "*" cannot be combined with origins');
    return ['*'];
  }
  return entries.map((entry) => {
    try {
      const url = new URL(entry);
      const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
      if ((url.protocol === 'http:' || url.protocol === 'https:') && bare) return url.origin;
    } catch {
      // not a URL: reported below
    }
    problems.push(`SEARCHPLANE_CORS_ORIGINS: "${entry}" is not an origin like https://app.example.com`);
    return entry;
  });
}

/** Names proxy-addr (behind Fastify's trustProxy) knows for address ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * SEARCHPLANE_TRUST_PROXY as Fastify's `trustProxy` takes it: unset or `false` (use the socket
 * address; ignore X-Forwarded-For), `true` (trust every proxy), a hop count, or a comma-separated
 * list of proxy addresses, CIDR ranges and the names `loopback`, `linklocal`, `uniquelocal`.
 */
function parseTrustProxy(raw: string | undefined, problems: string[]): TrustProxy {
  if (raw === undefined || raw.trim().toLowerCase() === 'false') return false;
  if (raw.trim().toLowerCase() === 'true') return true;
  if (/^\s*\d+\s*$/.test(raw)) {
    const hops = Number(raw);
    if (hops <= 1000) return hops;
  }
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  const bad = entries.filter((entry) => !isProxyAddress(entry));
  if (entries.length === 0 || bad.length > 0) {
    problems.push(
      `SEARCHPLANE_TRUST_PROXY must be true, false, a hop count (0-1000) or a comma-separated list of addresses, CIDR ranges, loopback, linklocal or uniquelocal (got "${raw}")`,
    );
    return false;
  }
  return entries;
}

/**
 * The setting as Fastify's `trustProxy` option. Fastify refuses a bare hop count (it cannot check
 * the immediate peer), so a count becomes "trust the nearest `hops` addresses": right only when
 * every request comes through that many proxies, which is what setting a count states.
 */
export function fastifyTrustProxy(
  setting: TrustProxy,
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting;
  return (_address, hop) => hop < setting;
}

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d+$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128);
}

export type { PlanName };
