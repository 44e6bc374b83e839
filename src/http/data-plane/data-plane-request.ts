import type { FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { AppError } from '../../errors.js';
import type { DataPlaneCaller } from '../../services/data-plane/index.js';
import { DataPlaneParams } from '../schemas/data-plane.schemas.js';

/** The authenticated caller; only called by routes behind the token check. */
export function callerOf(request: FastifyRequest): DataPlaneCaller {
  if (!request.dataPlaneCaller) throw new AppError('internal_error', 'Data-plane route without a caller');
  return request.dataPlaneCaller;
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

/** The two URLs of a route that takes a namespace: `/{route}` (default namespace) and `/{route}/{namespace}`. */
export function namespacedUrls(route: string): [string, string] {
  return [`/${route}`, `/${route}/:namespace`];
}

const ErrorRef = Type.Ref('DataPlaneError');

/**
 * Route schema boilerplate: OpenAPI tag and bearer security, the endpoint/namespace params and the
 * error envelope for the statuses every data-plane route can answer (auth, quotas, limits).
 */
export function dataPlaneSchema<S extends object>(summary: string, schema: S) {
  const errors: Record<number, TSchema> = {};
  for (const status of [400, 401, 403, 404, 413, 414, 429, 500]) errors[status] = ErrorRef;
  return {
    tags: ['data-plane'],
    summary,
    security: [{ bearerAuth: [] }],
    params: DataPlaneParams,
    ...schema,
    response: { ...errors, ...((schema as { response?: object }).response ?? {}) },
  };
}
