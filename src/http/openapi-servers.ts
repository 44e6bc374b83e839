import type { FastifyRequest } from 'fastify';

/** A host and optional port as URLs spell them (a name, IPv4 or bracketed IPv6): nothing to escape. */
const PLAIN_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The document's `servers`: the configured public URL, or else the scheme and host the document
 * was fetched with, so "try it out" in /docs calls the same server whatever address it listens on.
 * A Host header that is not a plain host is not echoed (the document would carry whatever text a
 * client sent, for any cache in front to keep): the document then names no server, which means
 * its own origin.
 */
export function withServers<T extends object>(document: T, request: FastifyRequest, publicUrl?: string): T {
  if (publicUrl === undefined && !PLAIN_HOST.test(request.host)) return { ...document, servers: undefined };
  const url = (publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
  return { ...document, servers: [{ url, description: 'This searchplane server' }] };
}
