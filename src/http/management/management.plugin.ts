import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../services/clock.js';
import type { Services } from '../../services/index.js';
import type { Principal } from '../../services/principal.js';
import { createErrorHandler, renderManagementError } from '../error-handler.js';
import { apiKeyRoutes } from './api-keys.routes.js';
import { registerAudit } from './audit.hooks.js';
import { auditLogRoutes } from './audit-log.routes.js';
import { basicAuthHook } from './basic-auth.plugin.js';
import { registerIdempotency } from './idempotency.hooks.js';
import { messagingRoutes } from './messaging.routes.js';
import { searchIndexRoutes } from './search-indexes.routes.js';
import { searchStatsRoutes } from './search-stats.routes.js';

export interface ManagementPluginOptions {
  services: Services;
  authFailureLimit: number;
  clock: Clock;
}

/**
 * The `/v2` management API: HTTP Basic auth on every route of this context (the app's own first
 * hook, with the start-up gate and the path and query checks, runs before it), management error
 * format.
 */
export async function managementPlugin(app: FastifyInstance, options: ManagementPluginOptions): Promise<void> {
  app.setErrorHandler(createErrorHandler(renderManagementError));
  app.decorateRequest('accountEmail', '');
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook(
    'onRequest',
    basicAuthHook({
      accounts: options.services.accounts,
      failureLimit: options.authFailureLimit,
      clock: options.clock,
    }),
  );
  registerIdempotency(app, options.services.idempotency);
  registerAudit(app, options.services.audit);
  await app.register(searchStatsRoutes, { services: options.services });
  await app.register(searchIndexRoutes, { services: options.services });
  await app.register(messagingRoutes, { services: options.services });
  await app.register(apiKeyRoutes, { services: options.services });
  await app.register(auditLogRoutes, { services: options.services });
}
