import { createHash, timingSafeEqual } from 'node:crypto';
import { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { AppError } from '../errors.js';
import { type AppMetrics, dataPlaneOutcome, searchSeconds } from '../metrics/metrics.js';
import type { DataPlaneRoute } from '../services/data-plane/index.js';

/** Counts one finished response. */
type ResponseCounter = (request: FastifyRequest, reply: FastifyReply) => void;

declare module 'fastify' {
  interface FastifyInstance {
    /** Counts, when it ends, the response to a request no route matched. */
    countUnmatchedResponse?: ResponseCounter;
  }
  interface FastifyContextConfig {
    /** Counts, when it ends, a response of this route (set when the route is added). */
    countResponse?: ResponseCounter;
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
 * Each route gets its own counter, made when the route is added and holding its pattern and
 * operation, kept in the route's config. {@link ResponseCountingLogController} calls it when the
 * response ends: Fastify calls its controller then for every response anyway (to log it), where an
 * onResponse hook cost a run of Fastify's hook machinery per response (issue #11). So only routes
 * added after this plugin are counted by pattern. Requests no route matched (including those
 * refused before the not-found handler, such as a 400 or 503 from the first onRequest hook) are
 * counted by {@link FastifyInstance.countUnmatchedResponse}.
 */
async function metricsPlugin(app: FastifyInstance, { metrics, token }: MetricsPluginOptions): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.config = {
      ...route.config,
      countResponse: responseCounter(metrics, route.url, route.config?.dataPlaneRoute),
    };
  });
  const unmatched = metrics.http.forRoute(UNMATCHED_ROUTE);
  app.decorate('countUnmatchedResponse', (request: FastifyRequest, reply: FastifyReply) =>
    unmatched(request.method, reply.statusCode, reply.elapsedTime / 1000),
  );

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

function responseCounter(metrics: AppMetrics, url: string, operation: DataPlaneRoute | undefined): ResponseCounter {
  const record = metrics.http.forRoute(url);
  return (request, reply) => {
    const seconds = reply.elapsedTime / 1000;
    record(request.method, reply.statusCode, seconds);
    if (operation !== undefined) {
      metrics.dataPlaneOperations.inc({ operation, outcome: dataPlaneOutcome(reply.statusCode) });
      if (operation === 'search' && reply.statusCode < 400) searchSeconds.observe(seconds);
    }
  };
}

/**
 * Fastify's log controller, which also counts each response as it ends (for a finished response
 * or a failed one, as an onResponse hook would run), through the counters {@link metricsPlugin}
 * gave the routes. Fastify calls it only when it has a logger, so the app always gives it one.
 */
export class ResponseCountingLogController extends LogController {
  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ): void {
    // `routeOptions` builds an object on each read: a cost measured well below that of a hook run.
    const count = request.is404 ? request.server.countUnmatchedResponse : request.routeOptions.config.countResponse;
    try {
      count?.(request, reply);
    } catch (countError) {
      // This runs in the response's 'finish' listener, where a throw would end the process; a hook
      // runner used to catch it.
      reply.log.error({ err: countError }, 'counting a response for the metrics failed');
    }
    super.requestCompleted(error, request, reply, metadata);
  }
}

/** Fixed-length digests, so the comparison takes the same time whatever the header's length. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export default fp(metricsPlugin, { name: 'searchplane-metrics' });
