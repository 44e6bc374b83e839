import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DocumentInput } from '../../engine/contract.js';
import type { DataPlaneService, RangeInput } from '../../services/data-plane/data-plane.service.js';
import {
  DeleteBody,
  FetchBody,
  RangeBody,
  ResetQuery,
  resetsAll,
  resultOf,
  UpsertBody,
} from '../schemas/data-plane.schemas.js';
import {
  callerOf,
  dataPlaneSchema,
  envelope,
  namespacedUrls,
  namespaceOf,
  readBudgetOf,
} from './data-plane-request.js';

/**
 * Document routes, each at `/{route}` (default namespace) and `/{route}/{namespace}`:
 * upsert-data, fetch, delete, range, reset, delete-namespace.
 */
export const documentRoutes: FastifyPluginAsyncTypebox<{ service: DataPlaneService }> = async (app, { service }) => {
  for (const { url, ...route } of namespacedUrls('upsert-data', ['upsertDocuments', 'upsertDocumentsInNamespace'])) {
    const schema = dataPlaneSchema('Insert or replace documents by id (creates the namespace)', {
      ...route,
      body: UpsertBody,
      response: { 200: resultOf('"Success"') },
    });
    app.post(url, { schema, config: { dataPlaneRoute: 'upsert-data' } }, async (request) =>
      envelope(await service.upsert(callerOf(request), namespaceOf(request), request.body as DocumentInput[])),
    );
  }

  for (const { url, ...route } of namespacedUrls('fetch', ['fetchDocuments', 'fetchDocumentsInNamespace'])) {
    const schema = dataPlaneSchema('Fetch documents by ids (aligned, null where missing) or by id prefix', {
      ...route,
      body: FetchBody,
      response: { 200: resultOf('Documents') },
    });
    app.post(url, { schema, config: { dataPlaneRoute: 'fetch' } }, async (request) =>
      envelope(await service.fetch(callerOf(request), namespaceOf(request), request.body, readBudgetOf(request))),
    );
  }

  for (const { url, ...route } of namespacedUrls('delete', ['deleteDocuments', 'deleteDocumentsInNamespace'])) {
    const schema = dataPlaneSchema('Delete documents by ids, id prefix or filter', {
      ...route,
      body: DeleteBody,
      response: { 200: resultOf('{ deleted: number }') },
    });
    app.post(url, { schema, config: { dataPlaneRoute: 'delete' } }, async (request) =>
      envelope(await service.delete(callerOf(request), namespaceOf(request), request.body)),
    );
  }

  for (const { url, ...route } of namespacedUrls('range', ['rangeDocuments', 'rangeDocumentsInNamespace'])) {
    const schema = dataPlaneSchema('Page through documents in id order', {
      ...route,
      body: RangeBody,
      response: { 200: resultOf('{ nextCursor: string ("" at the end), vectors: Document[] }') },
    });
    app.post(url, { schema, config: { dataPlaneRoute: 'range' } }, async (request) =>
      envelope(
        await service.range(callerOf(request), namespaceOf(request), request.body as RangeInput, readBudgetOf(request)),
      ),
    );
  }

  for (const { url, ...route } of namespacedUrls('reset', ['resetDefaultNamespace', 'resetNamespace'])) {
    const schema = dataPlaneSchema('Remove every document of the namespace (`?all`: of every namespace)', {
      ...route,
      querystring: ResetQuery,
      response: { 200: resultOf('"Success"') },
    });
    app.post(url, { schema, config: { dataPlaneRoute: 'reset' } }, async (request) =>
      envelope(await service.reset(callerOf(request), namespaceOf(request), resetsAll(request.query.all))),
    );
  }

  for (const { url, ...route } of namespacedUrls('delete-namespace', ['deleteDefaultNamespace', 'deleteNamespace'])) {
    const schema = dataPlaneSchema('Delete a namespace and its documents', {
      ...route,
      response: { 200: resultOf('"Success"') },
    });
    app.post(url, { schema, config: { dataPlaneRoute: 'delete-namespace' } }, async (request) =>
      envelope(await service.deleteNamespace(callerOf(request), namespaceOf(request))),
    );
  }
};
