import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DataPlaneService } from '../../services/data-plane/data-plane.service.js';
import { resultOf } from '../schemas/data-plane.schemas.js';
import { callerOf, dataPlaneSchema, envelope } from './data-plane-request.js';

/**
 * `/info` and `/list-namespaces`: index-wide, no namespace, no body (the SDK sends `[]`, which is
 * ignored). GET is accepted too, for people exploring with curl; each method is its own
 * OpenAPI operation (operationIds are unique).
 */
export const indexInfoRoutes: FastifyPluginAsyncTypebox<{ service: DataPlaneService }> = async (app, { service }) => {
  for (const [method, operationId] of [
    ['POST', 'indexInfo'],
    ['GET', 'indexInfoWithGet'],
  ] as const) {
    app.route({
      method,
      url: '/info',
      config: { dataPlaneRoute: 'info' },
      schema: dataPlaneSchema('Document counts per namespace and size on disk', {
        operationId,
        response: { 200: resultOf('{ vectorCount, pendingVectorCount, indexSize, namespaces: { [name]: counts } }') },
      }),
      handler: async (request) => envelope(await service.info(callerOf(request))),
    });
  }

  for (const [method, operationId] of [
    ['POST', 'listNamespaces'],
    ['GET', 'listNamespacesWithGet'],
  ] as const) {
    app.route({
      method,
      url: '/list-namespaces',
      config: { dataPlaneRoute: 'list-namespaces' },
      schema: dataPlaneSchema('Names of the namespaces, the default one ("") always among them', {
        operationId,
        response: { 200: resultOf('string[]') },
      }),
      handler: async (request) => envelope(await service.listNamespaces(callerOf(request))),
    });
  }
};
