import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorDetail, errors, isOutOfDescriptors } from '../errors.js';
import { isStoreBusy, isStoreUnavailable } from '../store/store-unavailable.js';

/** Longest path parameter (namespace, id, endpoint) the router takes, in URL characters; longer is 414. */
export const MAX_PARAM_LENGTH = 2048;

/** Renders an AppError in a plane's wire format. */
export type ErrorRenderer = (error: AppError, reply: FastifyReply) => unknown;

/** Management format: `{"error": "...", "code": "...", "details"?: [...]}`. */
export const renderManagementError: ErrorRenderer = (error) => ({
  error: error.message,
  code: error.code,
  ...(error.details ? { details: error.details } : {}),
});

/**
 * Turns anything thrown into an AppError: our own errors pass through, framework errors
 * (validation, parsing, limits) map to their codes, anything else is an internal error
 * whose message and stack never reach the client.
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    return new AppError('invalid_request', `Invalid ${fastifyError.validationContext ?? 'request'}`, {
      details: fastifyError.validation.map(validationDetail),
    });
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('invalid_json', 'The request body is not valid JSON');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_json', 'The request body is empty but JSON was declared');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'Send the request body as application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalid_request', 'Content-Length does not match the body');
    case 'FST_ERR_BAD_URL':
      // The router could not decode a path segment: malformed percent-encoding, or bytes that are
      // not UTF-8 (an encoded lone surrogate, say), which no name or id can hold.
      return new AppError(
        'invalid_characters',
        "The URL's percent-encoding is malformed or does not decode to UTF-8 text",
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('uri_too_long', `A path segment is longer than ${MAX_PARAM_LENGTH} characters`);
  }
  if (isOutOfDescriptors(error)) return errors.outOfDescriptors(error);
  if (isStoreBusy(error)) {
    return errors.retrySoon('The database is busy (another write holds this index); try again in a moment', error);
  }
  if (isStoreUnavailable(error)) {
    return errors.retrySoon('The database cannot be reached; try again in a moment', error);
  }
  if (fastifyError.statusCode === 413) return new AppError('payload_too_large', 'The request body is too large');
  if (fastifyError.statusCode === 415) return new AppError('unsupported_media_type', 'Unsupported content type');
  if (fastifyError.statusCode === 400 && fastifyError.message?.includes('JSON')) {
    return new AppError('invalid_json', 'The request body is not valid JSON');
  }
  return new AppError('internal_error', 'Internal server error', { cause: error });
}

function validationDetail(entry: NonNullable<FastifyError['validation']>[number]): ErrorDetail {
  const params = entry.params as Record<string, unknown>;
  const path = entry.instancePath.replace(/^\//, '').replaceAll('/', '.');
  if (entry.keyword === 'required') {
    const field = [path, String(params.missingProperty)].filter(Boolean).join('.');
    return { field, message: 'is required' };
  }
  if (entry.keyword === 'enum') {
    return { field: path, message: 'must be one of the allowed values', allowed: params.allowedValues as string[] };
  }
  return { field: path || undefined, message: entry.message ?? 'is invalid' };
}

/** Builds a Fastify error handler that renders every failure with `render`. */
export function createErrorHandler(render: ErrorRenderer) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    if (isClientGone(error, request)) {
      // The client closed the connection before its request was read: nobody gets an answer and
      // nothing failed here, so no error line (anyone could fill the log with them).
      request.log.info({ code: (error as { code?: unknown }).code }, 'client closed the connection mid-request');
      return reply.code(400).send();
    }
    const appError = toAppError(error);
    if (appError.status === 503) {
      // Unavailable for now (starting, an index closing, a model service down): expected and
      // retried by clients, so a warning; a stack only when something underneath failed.
      const cause = appError.cause;
      request.log.warn({ code: appError.code, ...(cause === undefined ? {} : { err: cause }) }, appError.message);
    } else if (appError.status >= 500) {
      request.log.error({ err: error }, 'request failed');
    }
    if (appError.headers) reply.headers(appError.headers);
    if (appError.status === 401 && !reply.hasHeader('www-authenticate')) {
      reply.header('www-authenticate', 'Basic realm="searchplane"');
    }
    return reply.code(appError.status).type('application/json; charset=utf-8').send(render(appError, reply));
  };
}

/**
 * An error from reading a request whose client hung up before all of it arrived (Node's "aborted"
 * while the body came in). Not one raised after the request was read whole, even if the client
 * has gone since: a database connection reset then is a failure here, to be reported.
 */
export function isClientGone(error: unknown, request: FastifyRequest): boolean {
  const { code } = error as { code?: unknown };
  const { raw } = request;
  return (code === 'ECONNRESET' || code === 'ECONNABORTED') && !raw.complete && (raw.destroyed || raw.readableAborted);
}
