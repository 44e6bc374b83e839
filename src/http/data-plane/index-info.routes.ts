import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DataPlaneService } from '../../services/data-plane/data-plane.service.js';
import { resultOf } from '../schemas/data-plane.schemas.js';
import { callerOf, dataPlaneSchema, envelope } from './data-plane-request.js';

/**
 * `/info` and `/list-namespaces`: index-wide, no namespace, no body (the SDK sends `[]`, which is
 * ignored). GET is accepted too, for people exploring with curl.
 */
export const indexInfoRoutes: FastifyPluginAsyncTypebox<{ service: DataPlaneService }> = async (app, { service }) => {
  app.route({
    method: ['GET', 'POST'],
    url: '/info',
    config: { dataPlaneRoute: 'info' },
    schema: dataPlaneSchema('Document counts per namespace and size on disk', {
      response: { 200: resultOf('{ vectorCount, pendingVectorCount, indexSize, namespaces: { [name]: counts } }') },
    }),
    handler: async (request) => envelope(await service.info(callerOf(request))),
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/list-namespaces',
    config: { dataPlaneRoute: 'list-namespaces' },
    schema: dataPlaneSchema('Names of the namespaces', { response: { 200: resultOf('string[]') } }),
    handler: async (request) => envelope(await service.listNamespaces(callerOf(request))),
  });
};
