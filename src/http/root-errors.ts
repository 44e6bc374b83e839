import type { FastifyReply, FastifyRequest } from 'fastify';
import { renderDataPlaneError } from './data-plane/data-plane-error.renderer.js';
import { createErrorHandler, type ErrorRenderer, renderManagementError, toAppError } from './error-handler.js';
import { setRequestIdHeader } from './request-id.js';

/**
 * Errors outside both planes' routes: a path under `/indexes/` that matches no data-plane route
 * (an overlong endpoint, an unknown method) falls through to the root's not-found handler, and the
 * router refuses some URLs (bad percent-encoding, a path parameter over `maxParamLength`) before
 * any route or plugin is chosen. Each is rendered in the envelope of the plane its path belongs to.
 */
export const renderForPath: ErrorRenderer = (error, reply) =>
  isDataPlanePath(reply.request.url) ? renderDataPlaneError(error, reply) : renderManagementError(error, reply);

/** The root instance's error handler (not-found routes, /healthz, docs). */
export const rootErrorHandler = createErrorHandler(renderForPath);

/** Fastify's `frameworkErrors` option: router-level refusals, rendered like every other error. */
export function handleFrameworkError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  setRequestIdHeader(request, reply);
  const appError = toAppError(error);
  reply.code(appError.status).type('application/json; charset=utf-8').send(renderForPath(appError, reply));
}

function isDataPlanePath(url: string | undefined): boolean {
  return (url ?? '').startsWith('/indexes/');
}
