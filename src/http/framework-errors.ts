import type { FastifyReply, FastifyRequest } from 'fastify';
import { renderDataPlaneError } from './data-plane/data-plane-error.renderer.js';
import { renderManagementError, toAppError } from './error-handler.js';

/**
 * Fastify's `frameworkErrors` hook: the router refuses some URLs (bad percent-encoding, a path
 * parameter over `maxParamLength`) before any route or plugin is chosen, so no plane's error
 * handler sees them. They are rendered here in the envelope of the plane the path belongs to.
 */
export function renderFrameworkError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const appError = toAppError(error);
  const dataPlane = (request.url ?? '').startsWith('/indexes/');
  const body = dataPlane ? renderDataPlaneError(appError, reply) : renderManagementError(appError, reply);
  reply.code(appError.status).type('application/json; charset=utf-8').send(body);
}
