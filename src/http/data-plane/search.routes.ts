import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DataPlaneService } from '../../services/data-plane/data-plane.service.js';
import { resultOf, SearchBody } from '../schemas/data-plane.schemas.js';
import {
  callerOf,
  dataPlaneSchema,
  envelope,
  namespacedUrls,
  namespaceOf,
  readBudgetOf,
} from './data-plane-request.js';

/** `/search` and `/search/{namespace}`: hybrid full-text + semantic search. */
export const searchRoutes: FastifyPluginAsyncTypebox<{ service: DataPlaneService }> = async (app, { service }) => {
  for (const { url, ...route } of namespacedUrls('search', ['searchDocuments', 'searchDocumentsInNamespace'])) {
    const schema = dataPlaneSchema('Search documents (hybrid full text + semantic), best first, scores 0..1', {
      ...route,
      body: SearchBody,
      response: { 200: resultOf('[{ id, score, content?, metadata? }]') },
    });
    app.post(url, { schema, config: { dataPlaneRoute: 'search' } }, async (request) =>
      envelope(await service.search(callerOf(request), namespaceOf(request), request.body, readBudgetOf(request))),
    );
  }
};
