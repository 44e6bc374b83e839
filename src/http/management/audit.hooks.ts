import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditAction, AuditLogService } from '../../services/audit-log.service.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The change a successful answer of this route records in the audit log; its target is the
     * route's `id` parameter, or the `id` of its answer for creates (`target: 'answer'`).
     */
    audit?: { action: AuditAction; target?: 'params' | 'answer' };
  }
}

/**
 * The management context's audit hook: before a successful answer of an audited route is sent,
 * it is recorded with who (principal), from where (request id, client address), what and which
 * target. The details are the request body, which no audited route takes a secret in; answers
 * (which hold tokens and key secrets) are never recorded. A replayed idempotent answer changed
 * nothing and is not recorded again.
 */
export function registerAudit(app: FastifyInstance, audit: AuditLogService): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const config = request.routeOptions.config.audit;
    if (config === undefined || reply.statusCode >= 300 || reply.hasHeader('idempotent-replayed')) return payload;
    try {
      const target = config.target === 'answer' ? idOfAnswer(payload) : idOfParams(request);
      await audit.record(
        { principal: request.principal, requestId: request.id, clientAddress: request.ip },
        config.action,
        target,
        request.body ?? null,
      );
    } catch (error) {
      // The change is made: refusing its answer now would only make the client retry it.
      request.log.error({ err: error, action: config.action }, 'could not record a change in the audit log');
    }
    return payload;
  });
}

function idOfParams(request: FastifyRequest): string | null {
  const { id } = (request.params ?? {}) as { id?: unknown };
  return typeof id === 'string' ? id : null;
}

function idOfAnswer(payload: unknown): string | null {
  const { id } = JSON.parse(String(payload)) as { id?: unknown };
  return typeof id === 'string' ? id : null;
}
