import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../../services/index.js';
import { OPTIONAL_BODY } from '../openapi-optional-bodies.js';
import { managementErrors, OkSchema, sendOk, UuidParams } from '../schemas/common.schemas.js';
import {
  CreateSearchIndexBody,
  ListOrPage,
  PageQuery,
  RenameBody,
  ResetPasswordBody,
  TransferBody,
} from '../schemas/management.schemas.js';
import { IdempotencyHeaders } from './idempotency.hooks.js';
import { pageRequestOf } from './paging.js';

const tags = ['search'];
const SearchIndex = Type.Ref('SearchIndex');

/** `/v2/search` and `/v2/search/{id}`: create, read, list, rename, rotate tokens, delete. */
export const searchIndexRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { indexes } = services;

  app.post(
    '/search',
    {
      config: {
        access: { action: 'indexes.write', scope: 'account' },
        idempotent: true,
        audit: { action: 'index.create', target: 'answer' },
      },
      schema: {
        tags,
        operationId: 'createSearchIndex',
        summary: 'Create a search index',
        headers: IdempotencyHeaders,
        body: CreateSearchIndexBody,
        response: { 200: SearchIndex, ...managementErrors(400, 409, 413, 415) },
      },
    },
    (request) => indexes.create(request.accountEmail, request.body),
  );

  app.get(
    '/search',
    {
      config: { access: { action: 'indexes.read' } },
      schema: {
        tags,
        operationId: 'listSearchIndexes',
        summary: "List the account's search indexes",
        querystring: PageQuery,
        response: {
          200: ListOrPage(SearchIndex, 'indexes'),
          ...managementErrors(),
        },
      },
    },
    (request) => {
      const page = pageRequestOf(request.query);
      const { indexIds } = request.principal;
      return page === undefined
        ? indexes.list(request.accountEmail, indexIds)
        : indexes.list(request.accountEmail, indexIds, page);
    },
  );

  app.get(
    '/search/:id',
    {
      config: { access: { action: 'indexes.read', scope: 'index' } },
      schema: {
        tags,
        operationId: 'getSearchIndex',
        summary: 'Get a search index with its tokens, quotas and throughput',
        params: UuidParams,
        response: { 200: SearchIndex, ...managementErrors(404) },
      },
    },
    (request) => indexes.get(request.accountEmail, request.params.id),
  );

  app.delete(
    '/search/:id',
    {
      config: { access: { action: 'indexes.delete', scope: 'index' }, audit: { action: 'index.delete' } },
      schema: {
        tags,
        operationId: 'deleteSearchIndex',
        summary: 'Delete a search index and all its documents',
        params: UuidParams,
        response: { 200: OkSchema, ...managementErrors(404) },
      },
    },
    async (request, reply) => {
      await indexes.delete(request.accountEmail, request.params.id);
      return sendOk(reply);
    },
  );

  app.post(
    '/search/:id/rename',
    {
      config: { access: { action: 'indexes.write', scope: 'index' }, audit: { action: 'index.rename' } },
      schema: {
        tags,
        operationId: 'renameSearchIndex',
        summary: 'Rename a search index',
        params: UuidParams,
        body: RenameBody,
        response: { 200: OkSchema, ...managementErrors(400, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      await indexes.rename(request.accountEmail, request.params.id, request.body.name);
      return sendOk(reply);
    },
  );

  app.post(
    '/search/:id/reset-password',
    {
      config: { access: { action: 'tokens.rotate', scope: 'index' }, audit: { action: 'index.reset_password' } },
      schema: {
        tags,
        operationId: 'resetSearchPassword',
        summary: 'Replace both data-plane tokens, the old ones at once or after a grace period',
        params: UuidParams,
        body: ResetPasswordBody,
        [OPTIONAL_BODY]: true,
        response: { 200: OkSchema, ...managementErrors(404, 413, 415) },
      },
      // The body is optional (clients from before the grace period send none): no body is `{}`.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      await indexes.resetPassword(request.accountEmail, request.params.id, request.body?.grace_seconds ?? 0);
      return sendOk(reply);
    },
  );

  app.post(
    '/search/:id/transfer',
    {
      config: { access: { action: 'indexes.transfer', scope: 'index' }, audit: { action: 'index.transfer' } },
      schema: {
        tags,
        operationId: 'transferSearchIndex',
        summary: 'Give a search index, with its documents, tokens and usage, to another account of this server',
        params: UuidParams,
        body: TransferBody,
        response: { 200: OkSchema, ...managementErrors(404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      await indexes.transfer(request.accountEmail, request.params.id, request.body.target_account);
      return sendOk(reply);
    },
  );
};
