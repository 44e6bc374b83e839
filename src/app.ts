import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { type Config, fastifyTrustProxy } from './config.js';
import type { SearchEngine } from './engine/contract.js';
import { createEngine } from './engine-setup.js';
import { AppError } from './errors.js';
import { handleClientError } from './http/client-error.js';
import { consolePlugin } from './http/console/console.plugin.js';
import { dataPlanePlugin } from './http/data-plane/data-plane.plugin.js';
import { DATA_PLANE_PREFIX, dataDomainRewriter } from './http/data-plane/host-routing.js';
import { MAX_PARAM_LENGTH } from './http/error-handler.js';
import { inputGuard } from './http/input-guard.js';
import { managementPlugin } from './http/management/management.plugin.js';
import metricsPlugin from './http/metrics.plugin.js';
import { withOptionalBodies } from './http/openapi-optional-bodies.js';
import { withServers } from './http/openapi-servers.js';
import { requestIdOf } from './http/request-id.js';
import requestStart from './http/request-start.plugin.js';
import { handleFrameworkError, rootErrorHandler } from './http/root-errors.js';
import { ErrorSchema } from './http/schemas/common.schemas.js';
import { MANAGEMENT_SHARED_SCHEMAS } from './http/schemas/management.schemas.js';
import { createAppMetrics } from './metrics/metrics.js';
import { type Clock, systemClock } from './services/clock.js';
import { createDataPlane, EngineIndexData, removeOrphanedIndexData } from './services/data-plane/index.js';
import { createServices, type Services } from './services/index.js';
import type { Store } from './store/database.js';

export interface BuildAppOptions {
  config: Config;
  store: Store;
  clock?: Clock;
  /** `false` for no logging (tests); otherwise pino at config.logLevel, to `stream` or stdout. */
  logger?: false | { stream?: NodeJS.WritableStream };
  /**
   * The search engine behind every index. Without one, the embedded engine is created from the
   * config (under `config.dataDir`) and closed with the app; a given engine is the caller's to close.
   */
  engine?: SearchEngine;
  /**
   * While this returns false (start-up not finished), every request is answered 503 with
   * Retry-After; the server listens before it bootstraps accounts (see startServer).
   */
  acceptingRequests?: () => boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

/** Headers and fields that carry secrets; pino prints "[redacted]" instead. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
];

/**
 * Builds the whole HTTP app (management + data plane + docs) over an open, migrated store.
 * Never listens: the caller decides where and when.
 */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config, store } = options;
  const clock = options.clock ?? systemClock;
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: config.logLevel,
            redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
            ...(options.logger?.stream ? { stream: options.logger.stream } : {}),
          },
    bodyLimit: config.bodyLimitBytes,
    // Fastify turns Node's request timeout off (0) by default, which leaves a connection that sends
    // nothing, or a body that trickles in, open for ever: a few hundred of them, without any
    // credentials, take every file descriptor. Node answers such a request 408 and closes it; it
    // checks every quarter of the timeout (at most every 30 s, its default).
    requestTimeout: config.requestTimeoutMs,
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: Math.min(60_000, config.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(30_000, Math.ceil(config.requestTimeoutMs / 4)),
    },
    // x-request-id: the client's when sane, else a UUID; Fastify puts it in every log line of
    // the request as `reqId`.
    requestIdHeader: false,
    genReqId: requestIdOf,
    // request.ip (login throttling) honours X-Forwarded-For only from proxies the operator trusts.
    trustProxy: fastifyTrustProxy(config.trustProxy),
    return503OnClosing: true,
    // Namespace names and ids travel in path segments; the default 100 would answer 414.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // URLs the router refuses (bad percent-encoding, overlong segments) in the planes' envelopes.
    frameworkErrors: handleFrameworkError,
    // And requests the HTTP parser refuses (oversized headers, bad framing), in the same envelope.
    clientErrorHandler: handleClientError,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    ...(config.dataDomain ? { rewriteUrl: dataDomainRewriter(config.dataDomain) } : {}),
  }).withTypeProvider<TypeBoxTypeProvider>();
  store.useLogger?.(app.log);
  // The first hook of every request, before any plane's own (authentication).
  await app.register(requestStart, { acceptingRequests: options.acceptingRequests });

  // The JSON body parser, with the checks of every body (NUL, lone surrogates, nesting), before the
  // routes, so that schemas validate only bodies that passed them. (The path and query checks run
  // earlier, in the first hook, before authentication.)
  await app.register(inputGuard);

  const ownsEngine = options.engine === undefined;
  const engine = options.engine ?? createEngine(config, store, app.log, clock);
  const services = createServices({
    config,
    store,
    clock,
    data: new EngineIndexData(engine),
    onUsageFlushError: (error) => app.log.error({ err: error }, 'usage flush failed'),
  });
  app.decorate('services', services);

  app.addSchema(ErrorSchema);
  for (const schema of MANAGEMENT_SHARED_SCHEMAS) app.addSchema(schema);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'searchplane',
        version: '0.1.0',
        description: 'Management API for hosted search indexes, and the per-index search data plane.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      components: {
        securitySchemes: {
          basicAuth: { type: 'http', scheme: 'basic', description: 'Account email and API key' },
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'Index token or read-only token' },
          metricsToken: { type: 'http', scheme: 'bearer', description: 'SEARCHPLANE_METRICS_TOKEN, when set' },
        },
      },
      security: [{ basicAuth: [] }],
      tags: [
        { name: 'search', description: 'Search indexes' },
        { name: 'messaging', description: 'Messaging instances' },
        { name: 'keys', description: 'Management API keys' },
        { name: 'audit', description: 'Audit log of management changes' },
        { name: 'data-plane', description: 'Per-index search API (@upstash/search compatible), index token auth' },
        { name: 'system', description: 'Health and documentation' },
      ],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (documents) =>
      'openapiObject' in documents ? withOptionalBodies(documents.openapiObject) : documents.swaggerObject,
  });
  // After swagger, which documents its route.
  await app.register(metricsPlugin, { metrics: createAppMetrics({ store, engine }), token: config.metricsToken });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    transformSpecification: (document, request) => withServers(document, request, config.publicUrl),
  });

  app.setErrorHandler(rootErrorHandler);
  app.setNotFoundHandler((request) => {
    throw new AppError('route_not_found', `No route ${request.method} ${request.url.split('?')[0]}`);
  });

  app.get(
    '/healthz',
    {
      schema: {
        tags: ['system'],
        operationId: 'getHealth',
        summary: 'Liveness: the store is open and migrated',
        security: [],
        response: {
          200: Type.Object({ status: Type.Literal('ok') }),
          500: Type.Ref('ManagementError'),
          503: Type.Ref('ManagementError', { description: 'Still starting: not ready yet' }),
        },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['system'],
        operationId: 'getReadiness',
        summary: 'Readiness: started, and the store answers now',
        description:
          'For load balancers and Kubernetes readiness probes: 503 while the node starts or cannot reach its database (PostgreSQL down, cut off, or no writable host), 200 otherwise. `/healthz` stays a liveness check.',
        security: [],
        response: {
          200: Type.Object({ status: Type.Literal('ready') }),
          500: Type.Ref('ManagementError'),
          503: Type.Ref('ManagementError', { description: 'Starting, or the database cannot be reached' }),
        },
      },
    },
    async () => {
      await services.readiness.check();
      return { status: 'ready' as const };
    },
  );
  app.get('/openapi.json', { schema: { hide: true } }, async (request) =>
    withServers(app.swagger(), request, config.publicUrl),
  );

  await app.register(managementPlugin, {
    prefix: '/v2',
    services,
    authFailureLimit: config.authFailureLimit,
    clock,
  });

  await app.register(dataPlanePlugin, {
    prefix: DATA_PLANE_PREFIX,
    dataPlane: createDataPlane({
      engine,
      indexes: services.indexes,
      usage: services.usage,
      clock,
      shared: store.dialect === 'postgres' ? store.db : undefined,
      readBytesInFlight: config.readBufferBytes,
    }),
    corsOrigins: config.corsOrigins,
    readAnswerTimeoutMs: config.readAnswerTimeoutMs,
  });

  // The web console (`/` redirects to `/console`): static files calling the two APIs above.
  await app.register(consolePlugin, { config });

  app.addHook('onReady', async () => {
    services.usage.start();
    if (ownsEngine) await removeOrphanedIndexData(engine, store.db, app.log);
  });
  // Runs after in-flight requests finished: flush usage, then persist and close the indexes.
  app.addHook('onClose', async () => {
    try {
      await services.usage.stop();
    } finally {
      if (ownsEngine) await engine.close();
    }
  });
  return app;
}
