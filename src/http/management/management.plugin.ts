import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services/index.js';
import { createErrorHandler, renderManagementError } from '../error-handler.js';
import basicAuth from './basic-auth.plugin.js';
import { messagingRoutes } from './messaging.routes.js';
import { searchIndexRoutes } from './search-indexes.routes.js';
import { searchStatsRoutes } from './search-stats.routes.js';

export interface ManagementPluginOptions {
  services: Services;
  authFailureLimit: number;
}

/** The `/v2` management API: HTTP Basic auth, management error format. */
export async function managementPlugin(app: FastifyInstance, options: ManagementPluginOptions): Promise<void> {
  app.setErrorHandler(createErrorHandler(renderManagementError));
  await app.register(basicAuth, {
    accounts: options.services.accounts,
    failureLimit: options.authFailureLimit,
  });
  await app.register(searchStatsRoutes, { services: options.services });
  await app.register(searchIndexRoutes, { services: options.services });
  await app.register(messagingRoutes, { services: options.services });
}
