import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { AppError } from '../errors.js';
import { type AppMetrics, dataPlaneOutcome, searchSeconds } from '../metrics/metrics.js';
import type { DataPlaneRoute } from '../services/data-plane/index.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Counts, when it ends, the response to a request no route matched. */
    countUnmatchedResponse?: (request: FastifyRequest, reply: FastifyReply) => void;
  }
}

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
 * fastify-plugin so it sees the routes of every plugin registered after it.
 *
 * Each route gets its own onResponse hook, made when the route is added and holding its pattern
 * and operation: one hook for every route would read `request.routeOptions` on every response, a
 * getter that builds a new object each time (issue #11). So only routes added after this plugin
 * are counted. Requests no route matched are counted by {@link FastifyInstance.countUnmatchedResponse},
 * which the app's first onRequest hook calls for them (so a 400 or 503 given before the not-found
 * handler counts too).
 */
async function metricsPlugin(app: FastifyInstance, { metrics, token }: MetricsPluginOptions): Promise<void> {
  app.addHook('onRoute', (route) => {
    const hooks = route.onResponse === undefined ? [] : [route.onResponse].flat();
    route.onResponse = [...hooks, responseCounter(metrics, route.url, route.config?.dataPlaneRoute)];
  });
  const unmatched = metrics.http.forRoute(UNMATCHED_ROUTE);
  app.decorate('countUnmatchedResponse', (request: FastifyRequest, reply: FastifyReply) => {
    // No route, so no route hook: the response's end is its own event (as for Fastify's onResponse,
    // a finished or a failed response).
    const response = reply.raw;
    const count = () => {
      response.off('finish', count);
      response.off('error', count);
      unmatched(request.method, reply.statusCode, reply.elapsedTime / 1000);
    };
    response.once('finish', count);
    response.once('error', count);
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

/** A callback onResponse hook (an async one costs a promise per response) for one route. */
function responseCounter(
  metrics: AppMetrics,
  url: string,
  operation: DataPlaneRoute | undefined,
): onResponseHookHandler {
  const record = metrics.http.forRoute(url);
  return (request, reply, done) => {
    const seconds = reply.elapsedTime / 1000;
    record(request.method, reply.statusCode, seconds);
    if (operation !== undefined) {
      metrics.dataPlaneOperations.inc({ operation, outcome: dataPlaneOutcome(reply.statusCode) });
      if (operation === 'search' && reply.statusCode < 400) searchSeconds.observe(seconds);
    }
    done();
  };
}

/** Fixed-length digests, so the comparison takes the same time whatever the header's length. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export default fp(metricsPlugin, { name: 'searchplane-metrics' });
