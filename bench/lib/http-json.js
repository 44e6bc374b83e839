// A lean keep-alive JSON client over node:http for the benchmark: less client-side work per request
// than fetch or the SDK, so latencies are mostly the server's. Speaks the data plane's envelope.
import http from 'node:http';

/**
 * A client for `baseUrl` (e.g. `http://127.0.0.1:1234/indexes/abc`) sending `Bearer token`.
 * `post(path, body)` resolves to the `result` of the envelope and throws on a non-2xx status.
 */
export function jsonClient(baseUrl, token, { connections = 16 } = {}) {
  const base = new URL(baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  function post(path, body) {
    const payload = JSON.stringify(body ?? {});
    return new Promise((resolve, reject) => {
      const request = http.request(
        {
          agent,
          host: base.hostname,
          port: base.port,
          method: 'POST',
          path: `${prefix}${path}`,
          headers: { ...headers, 'content-length': Buffer.byteLength(payload) },
        },
        (response) => {
          const chunks = [];
          response.on('data', (chunk) => chunks.push(chunk));
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (response.statusCode < 200 || response.statusCode >= 300) {
              reject(new Error(`POST ${path} -> ${response.statusCode} ${text.slice(0, 300)}`));
              return;
            }
            try {
              resolve(JSON.parse(text).result);
            } catch (error) {
              reject(error);
            }
          });
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  }
  return { post, close: () => agent.destroy() };
}
