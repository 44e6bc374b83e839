import http from 'node:http';
import https from 'node:https';
import { type HttpRequest, type RawResponse, TIMEOUT_CODE } from './http-request.js';

// Keep-alive: an import sends thousands of requests to one server. Idle sockets are unref'd by
// the agent, so they do not keep the process alive.
const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

/**
 * The transport over node:http(s). (Not `fetch`: it refuses ports such as 9 or 6000 outright,
 * and its errors hide the system error code under `cause`.) The path goes out exactly as
 * written in `request.url`: the URL parser would turn a `%2E` segment (the namespace ".") into
 * a dot segment and drop it.
 */
export function nodeTransport(request: HttpRequest): Promise<RawResponse> {
  const url = new URL(request.url);
  const secure = url.protocol === 'https:';
  const target = { hostname: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, path: rawPath(request.url) };
  const headers: Record<string, string | number> = { accept: 'application/json', ...request.headers };
  if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
  return new Promise((resolve, reject) => {
    const call = (secure ? https : http).request(
      { ...target, method: request.method, headers, agent: secure ? agents.https : agents.http },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    call.setTimeout(request.timeoutMs, () =>
      call.destroy(Object.assign(new Error('timed out'), { code: TIMEOUT_CODE })),
    );
    call.on('error', reject);
    call.end(request.body);
  });
}

/**
 * Everything after `scheme://authority` as written (`/` when nothing), with only the characters
 * node:http refuses in a path (spaces, non-ASCII) percent-encoded; `%2E` stays `%2E`.
 */
export function rawPath(url: string): string {
  const authority = /^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i.exec(url);
  const rest = (authority ? url.slice(authority[0].length) : url).replace(/#.*$/s, '');
  const path = rest.startsWith('/') ? rest : `/${rest}`;
  return path.replace(/[^\x21-\x7e]+/g, (unsafe) => encodeURI(unsafe));
}
