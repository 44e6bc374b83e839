import { Registry } from 'prom-client';
import { expect, test } from 'vitest';
import { HttpRequestMetrics } from './http-request-metrics.js';

test('counts and times requests per method, route and status in the Prometheus text format', async () => {
  const registry = new Registry();
  const metrics = new HttpRequestMetrics(registry);
  const byId = metrics.forRoute('/v2/search/:id');
  byId('GET', 200, 0.0004);
  byId('GET', 200, 0.02);
  byId('GET', 404, 0.003);
  metrics.forRoute('/v2/search')('POST', 200, 42);

  const lines = (await registry.metrics()).split('\n');
  const labels = 'method="GET",route="/v2/search/:id",status_code="200"';
  expect(lines).toContain(`searchplane_http_requests_total{${labels}} 2`);
  expect(lines).toContain('searchplane_http_requests_total{method="GET",route="/v2/search/:id",status_code="404"} 1');
  expect(lines).toContain('# TYPE searchplane_http_request_duration_seconds histogram');
  // Cumulative buckets: 0.4 ms is in every bucket, 20 ms from 0.025 s up.
  expect(lines).toContain(`searchplane_http_request_duration_seconds_bucket{${labels},le="0.001"} 1`);
  expect(lines).toContain(`searchplane_http_request_duration_seconds_bucket{${labels},le="0.01"} 1`);
  expect(lines).toContain(`searchplane_http_request_duration_seconds_bucket{${labels},le="0.025"} 2`);
  expect(lines).toContain(`searchplane_http_request_duration_seconds_bucket{${labels},le="+Inf"} 2`);
  expect(lines).toContain(`searchplane_http_request_duration_seconds_sum{${labels}} 0.0204`);
  expect(lines).toContain(`searchplane_http_request_duration_seconds_count{${labels}} 2`);
  // Slower than the largest bound: only in +Inf.
  const slow = 'method="POST",route="/v2/search",status_code="200"';
  expect(lines).toContain(`searchplane_http_request_duration_seconds_bucket{${slow},le="10"} 0`);
  expect(lines).toContain(`searchplane_http_request_duration_seconds_bucket{${slow},le="+Inf"} 1`);
});

test('a merged registry renders the same series, and reset empties them', async () => {
  const registry = new Registry();
  const metrics = new HttpRequestMetrics(registry);
  metrics.forRoute('/healthz')('GET', 200, 0.001);
  const merged = await Registry.merge([registry, new Registry()]).metrics();
  expect(merged).toContain('searchplane_http_requests_total{method="GET",route="/healthz",status_code="200"} 1');
  registry.resetMetrics();
  expect(await registry.metrics()).not.toContain('route="/healthz"');
});

test('two recorders of one route count into the same series, and into a new one after a reset', async () => {
  const registry = new Registry();
  const metrics = new HttpRequestMetrics(registry);
  const route = metrics.forRoute('/healthz');
  route('GET', 200, 0.001);
  metrics.forRoute('/healthz')('GET', 200, 0.001);
  route('GET', 200, 0.001);
  expect(await registry.metrics()).toContain(
    'searchplane_http_requests_total{method="GET",route="/healthz",status_code="200"} 3',
  );
  registry.resetMetrics();
  // The recorder still remembers the dropped series; it must count into a new one.
  route('GET', 200, 0.001);
  expect(await registry.metrics()).toContain(
    'searchplane_http_requests_total{method="GET",route="/healthz",status_code="200"} 1',
  );
});
