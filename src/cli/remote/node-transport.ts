import http from 'node:http';
import https from 'node:https';
import { type HttpRequest, type RawResponse, TIMEOUT_CODE } from './http-request.js';

// Keep-alive: an import sends thousands of requests to one server. Idle sockets are unref'd by
// the agent, so they do not keep the process alive.
const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

/**
 * The transport over node:http(s). (Not `fetch`: it refuses ports such as 9 or 6000 outright,
 * and its errors hide the system error code under `cause`.)
 */
export function nodeTransport(request: HttpRequest): Promise<RawResponse> {
  const url = new URL(request.url);
  const secure = url.protocol === 'https:';
  const headers: Record<string, string | number> = { accept: 'application/json', ...request.headers };
  if (request.body !== undefined) headers['content-length'] = Buffer.byteLength(request.body);
  return new Promise((resolve, reject) => {
    const call = (secure ? https : http).request(
      url,
      { method: request.method, headers, agent: secure ? agents.https : agents.http },
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
