import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { DataPlane, DataPlaneCaller, DataPlaneRoute, ReadLease } from '../../services/data-plane/index.js';
import { createErrorHandler, toAppError } from '../error-handler.js';
import { DataPlaneErrorSchema } from '../schemas/data-plane.schemas.js';
import { registerDataPlaneCors } from './data-plane-cors.js';
import { renderDataPlaneError } from './data-plane-error.renderer.js';
import { documentRoutes } from './document.routes.js';
import { indexInfoRoutes } from './index-info.routes.js';
import { limitAnswerTime, releaseWhenAnswered } from './read-lease-lifecycle.js';
import { searchRoutes } from './search.routes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The index and token kind behind a data-plane request (set by the token check). */
    dataPlaneCaller: DataPlaneCaller | null;
    /** A read's share of the node's memory for documents in flight (search, fetch, range). */
    readLease: ReadLease | null;
  }
  interface FastifyContextConfig {
    /** Marks a data-plane route; its name decides what a read-only token may call. */
    dataPlaneRoute?: DataPlaneRoute;
  }
}

export interface DataPlanePluginOptions {
  dataPlane: DataPlane;
  /** Browser origins allowed by CORS (`['*']` = any); none by default. */
  corsOrigins?: readonly string[];
  /** Time a read's answer that holds read memory has to reach its client before the connection is closed. */
  readAnswerTimeoutMs?: number;
}

const BEARER_CHALLENGE = 'Bearer realm="searchplane"';
/** Routes whose answers carry documents, read under the node's ReadBytesBudget. */
const READS: ReadonlySet<DataPlaneRoute> = new Set(['search', 'fetch', 'range']);

/**
 * The per-index API (`/indexes/{endpoint}/...`, or `/...` on `{endpoint}.{dataDomain}`):
 * `@upstash/search`-compatible routes behind index-token auth, answering in the SDK's envelope.
 * Meters the request and response bytes of every authenticated request.
 */
export async function dataPlanePlugin(
  app: FastifyInstance,
  { dataPlane, corsOrigins = [], readAnswerTimeoutMs = 60_000 }: DataPlanePluginOptions,
): Promise<void> {
  await registerDataPlaneCors(app, corsOrigins);
  app.addSchema(DataPlaneErrorSchema);
  const handleError = createErrorHandler(renderDataPlaneError);
  app.setErrorHandler((error, request, reply) => {
    // The shared handler would challenge with the management plane's Basic scheme.
    if (toAppError(error).status === 401) reply.header('www-authenticate', BEARER_CHALLENGE);
    return handleError(error, request, reply);
  });
  app.setNotFoundHandler((request) => {
    throw new AppError('route_not_found', `Not found: ${request.method} ${dataPlanePath(request)}`);
  });

  app.decorateRequest('dataPlaneCaller', null);
  app.decorateRequest('readLease', null);
  app.addHook('onRequest', async (request, reply) => {
    // Every body is JSON: the SDK says so, but curl users of the REST API often omit the header.
    if (!request.headers['content-type']?.toLowerCase().startsWith('application/json')) {
      request.headers['content-type'] = 'application/json';
    }
    const route = request.routeOptions.config.dataPlaneRoute;
    if (request.is404 || !route) return;
    const { endpoint } = request.params as { endpoint: string };
    const caller = await dataPlane.auth.authenticate(endpoint, request.headers.authorization);
    request.dataPlaneCaller = caller;
    dataPlane.auth.authorize(caller, route);
    if (READS.has(route)) {
      const lease = dataPlane.readBytes.lease(caller.indexId);
      request.readLease = lease;
      releaseWhenAnswered(request, reply, lease);
    }
  });
  app.addHook('onSend', async (request, _reply, payload) => {
    if (request.dataPlaneCaller) {
      const answerBytes = payloadBytes(payload);
      limitAnswerTime(request, readAnswerTimeoutMs, answerBytes);
      dataPlane.service.recordBandwidth(request.dataPlaneCaller, requestBytes(request) + answerBytes);
    }
    return payload;
  });

  const { service } = dataPlane;
  await app.register(documentRoutes, { service });
  await app.register(searchRoutes, { service });
  await app.register(indexInfoRoutes, { service });
}

function dataPlanePath(request: FastifyRequest): string {
  const path = request.url.split('?')[0];
  const { endpoint } = request.params as { endpoint?: string };
  const prefix = endpoint === undefined ? '' : `/indexes/${endpoint}`;
  return path.startsWith(prefix) ? path.slice(prefix.length) || '/' : path;
}

/** The body's size: as declared, or as received when it came in chunks (no Content-Length). */
function requestBytes(request: FastifyRequest): number {
  const declared = request.headers['content-length'];
  if (declared === undefined) return request.chunkedBodyBytes;
  const length = Number(declared);
  return Number.isFinite(length) && length > 0 ? length : 0;
}

function payloadBytes(payload: unknown): number {
  if (typeof payload === 'string') return Buffer.byteLength(payload);
  if (Buffer.isBuffer(payload)) return payload.length;
  return 0;
}
