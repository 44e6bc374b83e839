import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DocumentInput } from '../../engine/contract.js';
import type { DataPlaneService, RangeInput } from '../../services/data-plane/data-plane.service.js';
import { DeleteBody, FetchBody, RangeBody, ResetQuery, resultOf, UpsertBody } from '../schemas/data-plane.schemas.js';
import { callerOf, dataPlaneSchema, envelope, namespacedUrls, namespaceOf } from './data-plane-request.js';

/**
 * Document routes, each at `/{route}` (default namespace) and `/{route}/{namespace}`:
 * upsert-data, fetch, delete, range, reset, delete-namespace.
 */
export const documentRoutes: FastifyPluginAsyncTypebox<{ service: DataPlaneService }> = async (app, { service }) => {
  for (const url of namespacedUrls('upsert-data')) {
    const schema = dataPlaneSchema('Insert or replace documents by id (creates the namespace)', {
      body: UpsertBody,
      response: { 200: resultOf('"Success"') },
    });
    app.post(url, { schema, config: { dataPlaneRoute: 'upsert-data' } }, async (request) =>
      envelope(await service.upsert(callerOf(request), namespaceOf(request), request.body as DocumentInput[])),
    );
  }

  for (const url of namespacedUrls('fetch')) {
    const schema = dataPlaneSchema('Fetch documents by ids (aligned, null where missing) or by id prefix', {
      body: FetchBody,
      response: { 200: resultOf('Documents') },
    });
    app.post(url, { schema, config: { dataPlaneRoute: 'fetch' } }, async (request) =>
      envelope(await service.fetch(callerOf(request), namespaceOf(request), request.body)),
    );
  }

  for (const url of namespacedUrls('delete')) {
    const schema = dataPlaneSchema('Delete documents by ids, id prefix or filter', {
      body: DeleteBody,
      response: { 200: resultOf('{ deleted: number }') },
    });
    app.post(url, { schema, config: { dataPlaneRoute: 'delete' } }, async (request) =>
      envelope(await service.delete(callerOf(request), namespaceOf(request), request.body)),
    );
  }

  for (const url of namespacedUrls('range')) {
    const schema = dataPlaneSchema('Page through documents in id order', {
      body: RangeBody,
      response: { 200: resultOf('{ nextCursor: string ("" at the end), vectors: Document[] }') },
    });
    app.post(url, { schema, config: { dataPlaneRoute: 'range' } }, async (request) =>
      envelope(await service.range(callerOf(request), namespaceOf(request), request.body as RangeInput)),
    );
  }

  for (const url of namespacedUrls('reset')) {
    const schema = dataPlaneSchema('Remove every document of the namespace (`?all`: of every namespace)', {
      querystring: ResetQuery,
      response: { 200: resultOf('"Success"') },
    });
    app.post(url, { schema, config: { dataPlaneRoute: 'reset' } }, async (request) =>
      envelope(await service.reset(callerOf(request), namespaceOf(request), request.query.all !== undefined)),
    );
  }

  for (const url of namespacedUrls('delete-namespace')) {
    const schema = dataPlaneSchema('Delete a namespace and its documents', {
      response: { 200: resultOf('"Success"') },
    });
    app.post(url, { schema, config: { dataPlaneRoute: 'delete-namespace' } }, async (request) =>
      envelope(await service.deleteNamespace(callerOf(request), namespaceOf(request))),
    );
  }
};
