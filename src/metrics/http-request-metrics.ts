import type { Registry } from 'prom-client';

/** Upper bounds of the request-duration buckets, in seconds. */
export const HTTP_SECONDS_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Series {
  labels: { method: string; route: string; status_code: string };
  statusCode: number;
  count: number;
  sum: number;
  /** Requests per bucket (not cumulative); the last slot is above the largest bound. */
  buckets: Float64Array;
  /** Dropped by a reset of the metrics. */
  reset: boolean;
}

function add(entry: Series, seconds: number): void {
  entry.count++;
  entry.sum += seconds;
  let slot = 0;
  while (slot < HTTP_SECONDS_BUCKETS.length && seconds > HTTP_SECONDS_BUCKETS[slot]) slot++;
  entry.buckets[slot]++;
}

/** The shape prom-client's Registry reads from a metric when it renders or merges. */
interface MetricSource {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(): { name: string; help: string; type: string; aggregator: string; values: MetricValue[] };
  reset(): void;
}

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/**
 * `searchplane_http_requests_total` and `searchplane_http_request_duration_seconds`, counted in one
 * map of plain numbers keyed by method, route pattern and status. Every response goes through
 * here, so it is kept to a few additions (and a string key and one lookup when a route's method
 * or status differs from its last response, see {@link forRoute}): prom-client's labelled
 * `inc` and `observe` validate and hash the labels object on each call, which cost the busiest
 * management route a tenth of its throughput (issue #11). The exposition is prom-client's own:
 * the two metrics are registered in the app's registry as sources it reads at scrape time.
 */
export class HttpRequestMetrics {
  private readonly series = new Map<string, Series>();

  constructor(registry: Registry) {
    registry.registerMetric(this.counter() as never);
    registry.registerMetric(this.histogram() as never);
  }

  /**
   * Records the responses of one route pattern, by method and status, remembering the series of
   * its last response: a route answering the same method and status as last time (nearly always)
   * skips building the key and the lookup.
   */
  forRoute(route: string): (method: string, statusCode: number, seconds: number) => void {
    let last: Series | undefined;
    return (method, statusCode, seconds) => {
      let entry = last;
      if (entry === undefined || entry.statusCode !== statusCode || entry.labels.method !== method || entry.reset) {
        entry = this.entry(method, route, statusCode);
        last = entry;
      }
      add(entry, seconds);
    };
  }

  private entry(method: string, route: string, statusCode: number): Series {
    const key = `${method} ${statusCode} ${route}`;
    let entry = this.series.get(key);
    if (entry === undefined) {
      entry = {
        labels: { method, route, status_code: String(statusCode) },
        statusCode,
        count: 0,
        sum: 0,
        buckets: new Float64Array(HTTP_SECONDS_BUCKETS.length + 1),
        reset: false,
      };
      this.series.set(key, entry);
    }
    return entry;
  }

  private counter(): MetricSource {
    return this.source(
      'searchplane_http_requests_total',
      'counter',
      'HTTP requests answered, by method, route pattern and status code',
      () => [...this.series.values()].map((entry) => ({ labels: entry.labels, value: entry.count })),
    );
  }

  private histogram(): MetricSource {
    const name = 'searchplane_http_request_duration_seconds';
    return this.source(
      name,
      'histogram',
      'Time to answer an HTTP request, by method, route pattern and status code',
      () => {
        const values: MetricValue[] = [];
        for (const entry of this.series.values()) {
          let cumulative = 0;
          HTTP_SECONDS_BUCKETS.forEach((bound, slot) => {
            cumulative += entry.buckets[slot];
            values.push({ labels: { ...entry.labels, le: bound }, value: cumulative, metricName: `${name}_bucket` });
          });
          values.push({ labels: { ...entry.labels, le: '+Inf' }, value: entry.count, metricName: `${name}_bucket` });
          values.push({ labels: entry.labels, value: entry.sum, metricName: `${name}_sum` });
          values.push({ labels: entry.labels, value: entry.count, metricName: `${name}_count` });
        }
        return values;
      },
    );
  }

  private source(name: string, type: MetricSource['type'], help: string, values: () => MetricValue[]): MetricSource {
    return {
      name,
      help,
      type,
      aggregator: 'sum',
      get: () => ({ name, help, type, aggregator: 'sum', values: values() }),
      reset: () => {
        // A route's recorder may still hold one of these: it must not count into a dropped series.
        for (const entry of this.series.values()) entry.reset = true;
        this.series.clear();
      },
    };
  }
}
