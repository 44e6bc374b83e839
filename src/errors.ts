import { isOutOfDescriptors } from './descriptor-refusal.js';
import { ACTIONS, type MissingActionCode, missingActionCode } from './services/key-actions.js';

export { isOutOfDescriptors };

/**
 * The one error table: every failure a service or the engine can report has a stable
 * snake_case `code` mapped to exactly one HTTP status. Routes never pick statuses themselves;
 * the plane's error handler renders an {@link AppError} from this table.
 */
export const ERROR_STATUS = {
  ...missingActionStatuses(),
  invalid_request: 400,
  invalid_json: 400,
  invalid_filter: 400,
  filter_too_large: 400,
  invalid_characters: 400,
  nesting_too_deep: 400,
  plan_unavailable: 400,
  prodpack_requires_paid_plan: 400,
  request_limit_exceeded: 400,
  document_too_large: 400,
  malformed_request: 400,
  unauthorized: 401,
  forbidden: 403,
  key_limited_to_indexes: 403,
  key_grant_exceeds_own: 403,
  vector_limit_exceeded: 403,
  route_not_found: 404,
  index_not_found: 404,
  messaging_instance_not_found: 404,
  namespace_not_found: 404,
  account_not_found: 404,
  api_key_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  index_name_taken: 409,
  free_index_limit: 409,
  account_exists: 409,
  api_key_name_taken: 409,
  idempotency_key_reused: 409,
  idempotency_request_in_progress: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  unprocessable: 422,
  too_many_auth_failures: 429,
  headers_too_large: 431,
  rate_limited: 429,
  quota_exceeded: 429,
  internal_error: 500,
  upstream_unavailable: 502,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One 403 code per management action, naming the action a key lacks. */
function missingActionStatuses(): Record<MissingActionCode, 403> {
  return Object.fromEntries(ACTIONS.map((action) => [missingActionCode(action), 403])) as Record<
    MissingActionCode,
    403
  >;
}

export interface ErrorDetail {
  field?: string;
  message: string;
  allowed?: readonly (string | number)[];
}

export interface AppErrorOptions {
  details?: ErrorDetail[];
  /** Extra response headers, e.g. Retry-After for 429. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** A failure with a stable code; the message is for people and may change. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: ErrorDetail[];
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = options.details;
    this.headers = options.headers;
  }
}

/** Factories for the errors raised in more than one place. */
export const errors = {
  invalidRequest: (message: string, details?: ErrorDetail[]) => new AppError('invalid_request', message, { details }),
  unauthorized: (message = 'Missing or invalid credentials') => new AppError('unauthorized', message),
  indexNotFound: () => new AppError('index_not_found', 'Search index not found'),
  messagingNotFound: () => new AppError('messaging_instance_not_found', 'Messaging instance not found'),
  tooMany: (
    code: 'rate_limited' | 'quota_exceeded' | 'too_many_auth_failures',
    message: string,
    retryAfterSeconds: number,
  ) => new AppError(code, message, { headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) } }),
  /** The engine's close began: no index opens any more on this node. */
  shuttingDown: () => new AppError('service_unavailable', 'This node is shutting down; try another or again later'),
  /** A moment's shortage on this node (503 with Retry-After: 1): the same request may pass a second later. */
  retrySoon: (message: string, cause?: unknown) =>
    new AppError('service_unavailable', message, { headers: { 'retry-after': '1' }, cause }),
  /** The process ran out of file descriptors: connections and open indexes free them soon. */
  outOfDescriptors: (cause: unknown) =>
    errors.retrySoon('The server has too many files open; try again in a moment', cause),
};

/**
 * Whether `error` is, or was caused by, a refusal for want of a file descriptor: a moment's
 * shortage, answered 503 and retried, so work failing in the background for it logs a warning.
 */
export function forWantOfDescriptors(error: unknown): boolean {
  return isOutOfDescriptors(error) || (isAppError(error) && isOutOfDescriptors(error.cause));
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
