import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** Request headers a browser may send: what `@upstash/search` sends, plus a request id. */
export const CORS_ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'upstash-telemetry-sdk',
  'upstash-telemetry-platform',
  'upstash-telemetry-runtime',
  'x-request-id',
];

/** Response headers a browser app may read (request id, rate-limit hints). */
export const CORS_EXPOSED_HEADERS = [
  'x-request-id',
  'retry-after',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
];

/**
 * CORS for the data plane, so a browser app can search with a read-only token. `origins` is
 * `['*']` (any origin) or exact origins; empty = no CORS at all (the default). A request from
 * another origin, or without `Origin`, gets no CORS headers, and its preflight a 404.
 * Registered first in the data-plane scope: preflights are answered before the token check,
 * and CORS headers are on error answers too, so a browser app can read a 401 or a 429.
 */
export async function registerDataPlaneCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  const anyOrigin = origins.includes('*');
  const allowed = new Set(origins);
  await app.register(cors, {
    origin: (origin, callback) => {
      if (origin === undefined) callback(null, false);
      else callback(null, anyOrigin ? '*' : allowed.has(origin) ? origin : false);
    },
    methods: ['GET', 'POST'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
  });
}
