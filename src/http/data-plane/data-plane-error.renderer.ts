import type { ErrorRenderer } from '../error-handler.js';

/** The summary {@link toAppError} gives schema validation failures; the details say what failed. */
const VALIDATION_SUMMARY = /^Invalid (body|querystring|params|headers)$/;

/**
 * The data plane's failure envelope, `{"error": "...", "status": N, "code": "..."}`: the SDK reads
 * `error` and `status` (it throws `body.error`); `code` is the stable snake_case code of the error
 * table, for clients that branch on the kind of failure. There is no room for structured details,
 * so a schema validation failure's details (which field, what was wrong) are appended to its
 * one-line summary; the messages of our own errors already say all of it.
 */
export const renderDataPlaneError: ErrorRenderer = (error) => {
  const details = VALIDATION_SUMMARY.test(error.message) ? (error.details ?? []) : [];
  const text = details.map((detail) => (detail.field ? `${detail.field} ${detail.message}` : detail.message));
  return {
    error: text.length > 0 ? `${error.message}: ${text.join('; ')}` : error.message,
    status: error.status,
    code: error.code,
  };
};
