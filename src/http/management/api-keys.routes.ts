import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../../services/index.js';
import { managementErrors, OkSchema, sendOk, UuidParams } from '../schemas/common.schemas.js';
import { CreateApiKeyBody, ListOrPage, PageQuery } from '../schemas/management.schemas.js';
import { pageRequestOf } from './paging.js';

const tags = ['keys'];
const ApiKey = Type.Ref('ApiKey');

/** `/v2/keys`: the account's management API keys. */
export const apiKeyRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { apiKeys } = services;

  app.post(
    '/keys',
    {
      config: { access: { action: 'keys.write' }, audit: { action: 'key.create', target: 'answer' } },
      schema: {
        tags,
        operationId: 'createApiKey',
        summary: 'Create an API key (its secret is in this answer only)',
        body: CreateApiKeyBody,
        response: { 200: Type.Ref('CreatedApiKey'), ...managementErrors(404, 409, 413, 415) },
      },
    },
    (request) => apiKeys.create(request.principal, request.body),
  );

  app.get(
    '/keys',
    {
      config: { access: { action: 'keys.read' } },
      schema: {
        tags,
        operationId: 'listApiKeys',
        summary: "List the account's API keys (never their secrets)",
        querystring: PageQuery,
        response: {
          200: ListOrPage(ApiKey, 'keys'),
          ...managementErrors(),
        },
      },
    },
    (request) => {
      const page = pageRequestOf(request.query);
      return page === undefined ? apiKeys.list(request.accountEmail) : apiKeys.list(request.accountEmail, page);
    },
  );

  app.delete(
    '/keys/:id',
    {
      config: { access: { action: 'keys.delete' }, audit: { action: 'key.delete' } },
      schema: {
        tags,
        operationId: 'deleteApiKey',
        summary: 'Delete an API key; it is refused from the next request on',
        params: UuidParams,
        response: { 200: OkSchema, ...managementErrors(404) },
      },
    },
    async (request, reply) => {
      await apiKeys.delete(request.accountEmail, request.params.id);
      return sendOk(reply);
    },
  );
};
