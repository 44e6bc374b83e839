import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { DataPlaneClient, RefusedRequestError, retryAfterMs } from './data-plane-client.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A server answering each request with the next of `answers`; resolves to its URL and the bodies it got. */
async function serve(answers: { status: number; body: unknown; headers?: Record<string, string> }[]) {
  const received: { url?: string; authorization?: string; body: string }[] = [];
  const listening = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ url: request.url, authorization: request.headers.authorization, body });
      const answer = answers.shift() ?? { status: 500, body: { error: 'no more answers' } };
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(JSON.stringify(answer.body));
    });
  });
  server = listening;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}/indexes/e`, received };
}

describe('DataPlaneClient', () => {
  test('POSTs JSON with the bearer token and unwraps {result}; a 429 is waited out and retried', async () => {
    const { url, received } = await serve([
      { status: 429, body: { error: 'slow down', status: 429 }, headers: { 'retry-after': '0' } },
      { status: 200, body: { result: [{ id: 'a', score: 1 }] } },
    ]);
    const hits = await new DataPlaneClient(url, 'tok').call('search', { query: 'q' });
    expect(hits).toEqual([{ id: 'a', score: 1 }]);
    expect(received).toEqual([
      { url: '/indexes/e/search', authorization: 'Bearer tok', body: '{"query":"q"}' },
      { url: '/indexes/e/search', authorization: 'Bearer tok', body: '{"query":"q"}' },
    ]);
  });

  test('a 400 is a refused request with the server’s message; anything else fails with status and body', async () => {
    const { url } = await serve([
      { status: 400, body: { error: 'Query is empty', status: 400 } },
      { status: 503, body: { error: 'busy', status: 503 } },
    ]);
    const client = new DataPlaneClient(url, 'tok');
    const refused = client.call('search', {});
    await expect(refused).rejects.toBeInstanceOf(RefusedRequestError);
    await expect(refused).rejects.toThrow('Query is empty');
    await expect(client.call('search', {})).rejects.toThrow('search: 503 {"error":"busy","status":503}');
  });
});

describe('retryAfterMs', () => {
  test('seconds or an HTTP date; a second when absent or unreadable', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs('Thu, 01 Jan 1970 00:00:05 GMT', 1000)).toBe(4000);
    expect(retryAfterMs(null)).toBe(1000);
    expect(retryAfterMs('soon')).toBe(1000);
  });
});
