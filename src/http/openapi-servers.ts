import type { FastifyRequest } from 'fastify';

/**
 * The document's `servers`: the configured public URL, or else the scheme and host the document
 * was fetched with, so "try it out" in /docs calls the same server whatever address it listens on.
 */
export function withServers<T extends object>(document: T, request: FastifyRequest, publicUrl?: string): T {
  const url = (publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
  return { ...document, servers: [{ url, description: 'This searchplane server' }] };
}
