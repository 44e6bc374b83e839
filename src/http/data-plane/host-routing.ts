import type { IncomingMessage } from 'node:http';

/** Where the data plane is mounted for path-based access. */
export const DATA_PLANE_PREFIX = '/indexes/:endpoint';

/**
 * Fastify `rewriteUrl` for host-based access: a request to `Host: {endpoint}.{dataDomain}` is
 * routed as `/indexes/{endpoint}{url}`, so both forms share one set of routes. Other hosts
 * (the bare domain, the management host, deeper subdomains) keep their URL.
 */
export function dataDomainRewriter(dataDomain: string): (request: IncomingMessage) => string {
  const suffix = `.${dataDomain.toLowerCase()}`;
  return (request) => {
    const url = request.url ?? '/';
    const host = (request.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
    if (!host.endsWith(suffix)) return url;
    const endpoint = host.slice(0, -suffix.length);
    if (endpoint.length === 0 || endpoint.includes('.')) return url;
    return `/indexes/${endpoint}${url === '/' ? '' : url}`;
  };
}
