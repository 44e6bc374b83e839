import type { FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import type { ReadBudget } from '../../engine/contract.js';
import { AppError } from '../../errors.js';
import type { DataPlaneCaller } from '../../services/data-plane/index.js';
import { EndpointParams, NamespaceParams } from '../schemas/data-plane.schemas.js';

/** The authenticated caller; only called by routes behind the token check. */
export function callerOf(request: FastifyRequest): DataPlaneCaller {
  if (!request.dataPlaneCaller) throw new AppError('internal_error', 'Data-plane route without a caller');
  return request.dataPlaneCaller;
}

/** The read's share of the node's memory for documents in flight (search, fetch and range routes). */
export function readBudgetOf(request: FastifyRequest): ReadBudget | undefined {
  return request.readLease ?? undefined;
}

/**
 * The namespace of a `/{route}/{namespace}` request, URL-decoded by the router (the SDK puts
 * index names into the path as they are; clients that encode them get the same name).
 * Absent or empty = the default namespace "".
 */
export function namespaceOf(request: FastifyRequest): string {
  return (request.params as { namespace?: string }).namespace ?? '';
}

/** The SDK's success envelope. */
export function envelope<T>(result: T): { result: T } {
  return { result };
}

/** One registration of a data-plane route: its URL, its path parameters and its OpenAPI operationId. */
export interface DataPlaneUrl {
  url: string;
  params: typeof EndpointParams | typeof NamespaceParams;
  operationId: string;
}

/**
 * The two URLs of a route that takes a namespace: `/{route}` (default namespace) and
 * `/{route}/{namespace}`, each documented with exactly its own path parameters.
 */
export function namespacedUrls(route: string, operationIds: [string, string]): [DataPlaneUrl, DataPlaneUrl] {
  return [
    { url: `/${route}`, params: EndpointParams, operationId: operationIds[0] },
    { url: `/${route}/:namespace`, params: NamespaceParams, operationId: operationIds[1] },
  ];
}

const ErrorRef = Type.Ref('DataPlaneError');

/**
 * Route schema boilerplate: OpenAPI tag and bearer security, the endpoint param (unless `schema`
 * gives params) and the error envelope for the statuses every data-plane route can answer
 * (auth, quotas, limits, and 503 while the store cannot be reached, the node starts, or reads
 * already hold the node's memory for documents).
 */
export function dataPlaneSchema<S extends object>(summary: string, schema: S) {
  const errors: Record<number, TSchema> = {};
  for (const status of [400, 401, 403, 404, 413, 414, 429, 500, 503]) errors[status] = ErrorRef;
  return {
    tags: ['data-plane'],
    summary,
    security: [{ bearerAuth: [] }],
    params: EndpointParams,
    ...schema,
    response: { ...errors, ...((schema as { response?: object }).response ?? {}) },
  };
}
