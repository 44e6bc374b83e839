import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../../services/index.js';
import { managementErrors, UuidParams } from '../schemas/common.schemas.js';
import { StatsQuery } from '../schemas/management.schemas.js';

const tags = ['search'];

/** Usage statistics per index and per account, from metered data-plane traffic. */
export const searchStatsRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/search/stats',
    {
      config: { access: { action: 'stats.read', scope: 'account' } },
      schema: {
        tags,
        operationId: 'getGlobalSearchStats',
        summary: 'Account totals over all search indexes',
        response: { 200: Type.Ref('SearchAccountStats'), ...managementErrors() },
      },
    },
    (request) => services.stats.accountStats(request.accountEmail),
  );

  app.get(
    '/search/:id/stats',
    {
      config: { access: { action: 'stats.read', scope: 'index' } },
      schema: {
        tags,
        operationId: 'getSearchIndexStats',
        summary: 'Usage of one search index over a period',
        params: UuidParams,
        querystring: StatsQuery,
        response: { 200: Type.Ref('SearchIndexStats'), ...managementErrors(400, 404) },
      },
    },
    (request) => services.stats.indexStats(request.accountEmail, request.params.id, request.query.period ?? '1h'),
  );
};
