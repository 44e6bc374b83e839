import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { EngineStats, SearchEngine } from '../engine/contract.js';
import type { PoolStats } from '../store/database.js';

/**
 * Prometheus metrics. Two registries are merged at scrape time:
 * - one per app instance ({@link createAppMetrics}): HTTP requests, data-plane operations, the
 *   PostgreSQL pool and the engine's gauges, so every app built in one process (tests build many)
 *   counts only its own traffic;
 * - one per process: Node's default metrics and the engine latency histograms
 *   ({@link embedSeconds}, {@link searchSeconds}), which code without access to an app (the
 *   engine) observes directly.
 */

/** Where the engine gauges read from: the engine's own statistics of this node. */
export type EngineStatsSource = Pick<SearchEngine, 'stats'>;

/** Where the pool gauges read from: the store (only PostgreSQL has a pool). */
export interface PoolStatsSource {
  poolStats?(): PoolStats;
}

const processRegistry = new Registry();
let defaultMetricsStarted = false;

/**
 * Time to embed one batch of texts, in seconds. Process-wide: the engine reports each embedder call
 * (see engine-setup.ts; remote APIs can take seconds, hence the long tail of buckets).
 */
export const embedSeconds = new Histogram({
  name: 'searchplane_embed_duration_seconds',
  help: 'Time to embed one batch of texts',
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [processRegistry],
});

/**
 * Time to answer one search, in seconds. Observed for every successful data-plane search
 * request (route level); the engine may observe its own part later.
 */
export const searchSeconds = new Histogram({
  name: 'searchplane_search_duration_seconds',
  help: 'Time to answer one successful data-plane search request',
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [processRegistry],
});

/** Outcome label of a data-plane operation, from its HTTP status. */
export type DataPlaneOutcome =
  | 'success'
  | 'unauthorized'
  | 'forbidden'
  | 'rate_limited'
  | 'client_error'
  | 'server_error';

export function dataPlaneOutcome(status: number): DataPlaneOutcome {
  if (status < 400) return 'success';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 429) return 'rate_limited';
  return status < 500 ? 'client_error' : 'server_error';
}

/** Upper bounds of the request-duration buckets, in seconds. */
export const HTTP_SECONDS_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type HttpLabel = 'method' | 'route' | 'status_code';

export interface AppMetrics {
  readonly registry: Registry;
  /** Requests answered, by method, route pattern and status code. */
  readonly httpRequests: Counter<HttpLabel>;
  /** Their durations, by the same labels. */
  readonly httpSeconds: Histogram<HttpLabel>;
  readonly dataPlaneOperations: Counter<'operation' | 'outcome'>;
  /** The exposition text of this app's metrics and the process-wide ones. */
  scrape(): Promise<string>;
  readonly contentType: string;
}

export interface AppMetricsOptions {
  /** The store; its pool gauges exist when it has a pool (PostgreSQL). */
  store?: PoolStatsSource;
  /** The engine, for the per-node gauges (open indexes, documents, pending vectors). */
  engine?: EngineStatsSource;
}

/** The metrics of one app instance, in a registry of its own. */
export function createAppMetrics(options: AppMetricsOptions = {}): AppMetrics {
  if (!defaultMetricsStarted) {
    defaultMetricsStarted = true;
    collectDefaultMetrics({ register: processRegistry });
  }
  const registry = new Registry();
  const registers = [registry];
  const labelNames = ['method', 'route', 'status_code'] as const;
  const httpRequests = new Counter({
    name: 'searchplane_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames,
    registers,
  });
  const httpSeconds = new Histogram({
    name: 'searchplane_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route pattern and status code',
    labelNames,
    buckets: HTTP_SECONDS_BUCKETS,
    registers,
  });
  const dataPlaneOperations = new Counter({
    name: 'searchplane_data_plane_operations_total',
    help: 'Data-plane operations (upsert-data, search, fetch, ...) by outcome',
    labelNames: ['operation', 'outcome'] as const,
    registers,
  });

  const { store, engine } = options;
  if (store?.poolStats) registerGauges(registry, POOL_GAUGES, () => store.poolStats!());
  if (engine) registerGauges(registry, ENGINE_GAUGES, () => engine.stats());

  return {
    registry,
    httpRequests,
    httpSeconds,
    dataPlaneOperations,
    contentType: registry.contentType,
    scrape: () => Registry.merge([registry, processRegistry]).metrics(),
  };
}

/** [field of the stats, gauge name, help] */
type GaugeSpec<T> = [keyof T & string, string, string][];

const POOL_GAUGES: GaugeSpec<PoolStats> = [
  ['total', 'searchplane_pg_pool_connections', 'Open PostgreSQL connections in the pool'],
  ['idle', 'searchplane_pg_pool_idle_connections', 'Idle PostgreSQL connections in the pool'],
  ['waiting', 'searchplane_pg_pool_waiting_clients', 'Queries waiting for a PostgreSQL connection'],
];

const ENGINE_GAUGES: GaugeSpec<EngineStats> = [
  ['openIndexes', 'searchplane_engine_open_indexes', 'Indexes open in this process'],
  ['documents', 'searchplane_engine_documents', 'Documents in the indexes open in this process'],
  ['pendingVectors', 'searchplane_engine_pending_vectors', 'Documents not yet in the vector index on this node'],
];

/** Gauges that read one field each of `read()` at every scrape. */
function registerGauges<T extends object>(registry: Registry, specs: GaugeSpec<T>, read: () => T | Promise<T>): void {
  for (const [field, name, help] of specs) {
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        this.set(Number((await read())[field]));
      },
    });
  }
}
