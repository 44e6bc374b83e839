import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { AppError } from '../errors.js';
import { type AppMetrics, dataPlaneOutcome, searchSeconds } from '../metrics/metrics.js';

export interface MetricsPluginOptions {
  metrics: AppMetrics;
  /** When set, `GET /metrics` needs `Authorization: Bearer <token>`. */
  token?: string;
}

/** The route label of requests no route matched: raw URLs would carry ids and tokens. */
export const UNMATCHED_ROUTE = '(unmatched)';

/**
 * Counts and times every response (by route pattern, never the raw URL) and every data-plane
 * operation, and serves `GET /metrics` in the Prometheus text format. Registered with
 * fastify-plugin, so its `onResponse` hook is the app's own and sees every response, including
 * those refused before any route handler (a 400 or 503 from the first hook, a 404).
 */
async function metricsPlugin(app: FastifyInstance, { metrics, token }: MetricsPluginOptions): Promise<void> {
  // Synchronous (nothing here waits), so no promise per response; `request.routeOptions` builds a
  // new object at each read, so it is read once.
  app.addHook('onResponse', (request, reply, done) => {
    const seconds = reply.elapsedTime / 1000;
    const status = reply.statusCode;
    const { url, config } = request.routeOptions;
    const matched = !request.is404;
    const labels = { method: request.method, route: (matched && url) || UNMATCHED_ROUTE, status_code: status };
    metrics.httpRequests.inc(labels);
    metrics.httpSeconds.observe(labels, seconds);
    const operation = config.dataPlaneRoute;
    if (operation !== undefined && matched) {
      metrics.dataPlaneOperations.inc({ operation, outcome: dataPlaneOutcome(status) });
      if (operation === 'search' && status < 400) searchSeconds.observe(seconds);
    }
    done();
  });

  const expected = token === undefined ? undefined : digest(`Bearer ${token}`);
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['system'],
        operationId: 'getMetrics',
        summary: 'Prometheus metrics of this process',
        description: 'Needs `Authorization: Bearer <SEARCHPLANE_METRICS_TOKEN>` when that setting is set.',
        security: [{}, { metricsToken: [] }],
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: Type.String() } },
          },
          401: Type.Ref('ManagementError'),
          500: Type.Ref('ManagementError'),
        },
      },
    },
    async (request, reply) => {
      if (expected !== undefined && !timingSafeEqual(digest(request.headers.authorization ?? ''), expected)) {
        throw new AppError(
          'unauthorized',
          'Send the metrics token: Authorization: Bearer <SEARCHPLANE_METRICS_TOKEN>',
          {
            headers: { 'www-authenticate': 'Bearer realm="searchplane-metrics"' },
          },
        );
      }
      return reply.type(metrics.contentType).send(await metrics.scrape());
    },
  );
}

/** Fixed-length digests, so the comparison takes the same time whatever the header's length. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export default fp(metricsPlugin, { name: 'searchplane-metrics' });
