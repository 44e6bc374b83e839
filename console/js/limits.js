// An index record's per-request limits (max_reads_per_request, max_writes_per_request): a plan may
// set them to -1, which the API treats as no limit of the plan's, as it does for every quota. The
// API still has ceilings of its own whatever the plan says; these mirror the server's constants.

/** Results one search may ask for (MAX_TOP_K in src/engine/query/search-request.ts; test/integration/console.test.ts checks the two agree). */
export const API_MAX_TOP_K = 1000;
/** Documents one upsert may carry (MAX_WRITE_BATCH in src/services/data-plane/data-plane.service.ts). */
export const API_MAX_WRITE_BATCH = 5000;

/** The limit to keep under: the API's `ceiling` for -1 (unlimited), else the plan's, at least 1. */
export function perRequestLimit(value, ceiling) {
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) return ceiling;
  return Math.max(1, Math.min(value, ceiling));
}
