import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../../services/index.js';
import { managementErrors } from '../schemas/common.schemas.js';
import { AuditLogQuery, PageOf } from '../schemas/management.schemas.js';
import { pageRequestOf } from './paging.js';

/** `/v2/auditlogs`: the account's management changes, newest first, in pages. */
export const auditLogRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/auditlogs',
    {
      config: { access: { action: 'auditlogs.read', scope: 'account' } },
      schema: {
        tags: ['audit'],
        operationId: 'listAuditLogs',
        summary: "The account's management changes, newest first (one page; 100 entries unless limit says)",
        querystring: AuditLogQuery,
        response: { 200: PageOf(Type.Ref('AuditEntry'), 'One page of entries'), ...managementErrors() },
      },
    },
    (request) => {
      const { from, to } = request.query;
      return services.audit.list(request.accountEmail, {
        ...pageRequestOf(request.query),
        from: from === undefined ? undefined : Number(from),
        to: to === undefined ? undefined : Number(to),
      });
    },
  );
};
