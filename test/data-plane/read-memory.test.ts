import net from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { json } from '../helpers/app.js';
import { callIndex, createAccountWithIndex, createListeningApp, type ListeningContext } from '../helpers/data-plane.js';

/**
 * Reads hold memory for their documents until their answers are sent: with SEARCHPLANE_READ_BUFFER_MB=4,
 * a 16 MB page whose client does not read it keeps its bytes, and further reads of documents are
 * refused with 503 until that client has taken its answer.
 */
const DOCS = 1000;
const METADATA_BYTES = 16_000;

let ctx: ListeningContext;
let endpoint: string;
let token: string;

beforeAll(async () => {
  ctx = await createListeningApp({ env: { SEARCHPLANE_READ_BUFFER_MB: '4' } });
  ({
    index: { endpoint, token },
  } = await createAccountWithIndex(ctx.app));
  // 16 MB of metadata in upserts of 50 documents (under the 1 MB body limit).
  for (let first = 0; first < DOCS; first += 50) {
    const docs = Array.from({ length: 50 }, (_, i) => ({
      id: `doc-${String(first + i).padStart(4, '0')}`,
      content: { text: `document ${first + i}` },
      metadata: { blob: 'x'.repeat(METADATA_BYTES) },
    }));
    const response = await callIndex(ctx.app, endpoint, 'upsert-data/big', token, docs);
    expect(response.statusCode).toBe(200);
  }
}, 60_000);
afterAll(async () => {
  await ctx.app.close();
  await ctx.cleanup();
});

/**
 * Sends a range request for every document with metadata over a raw socket and reads nothing
 * until `drain()` is called: the answer (far larger than the socket buffers) stays in the server.
 */
function stalledRange(): { drain: () => Promise<string> } {
  const { port } = new URL(ctx.baseUrl);
  const socket = net.connect(Number(port), '127.0.0.1');
  const body = JSON.stringify({ cursor: '', limit: DOCS, includeMetadata: true });
  socket.write(
    `POST /indexes/${endpoint}/range/big HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  socket.pause();
  return {
    drain: () =>
      new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('end', () => resolve(Buffer.concat(chunks).toString()));
        socket.on('error', reject);
        socket.resume();
      }),
  };
}

const smallRange = () =>
  callIndex(ctx.app, endpoint, 'range/big', token, { cursor: '', limit: 5, includeMetadata: true });

describe('memory of reads in flight', () => {
  test('a read past the budget is refused with 503 while a stalled answer holds it, and admitted once it is sent', async () => {
    // Nothing held: a read larger than the whole budget is admitted.
    const stalled = stalledRange();
    await expect.poll(async () => (await smallRange()).statusCode, { timeout: 10_000, interval: 50 }).toBe(503);

    const refused = await smallRange();
    expect(refused.statusCode).toBe(503);
    expect(json(refused).code).toBe('service_unavailable');
    expect(refused.headers['retry-after']).toBe('1');
    const fetched = await callIndex(ctx.app, endpoint, 'fetch/big', token, {
      ids: ['doc-0001'],
      includeMetadata: true,
    });
    expect(fetched.statusCode).toBe(503);
    const searched = await callIndex(ctx.app, endpoint, 'search/big', token, {
      query: 'document',
      topK: 5,
      includeMetadata: true,
    });
    expect(searched.statusCode).toBe(503);
    // Reads without documents' data or metadata hold nothing and go on.
    const ids = await callIndex(ctx.app, endpoint, 'range/big', token, { cursor: '', limit: 5 });
    expect(ids.statusCode).toBe(200);
    expect(json(ids).result.vectors).toHaveLength(5);

    const answer = await stalled.drain();
    expect(answer.startsWith('HTTP/1.1 200 OK')).toBe(true);
    const page = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(page.result.vectors).toHaveLength(DOCS);
    expect(page.result.vectors[DOCS - 1].metadata.blob).toHaveLength(METADATA_BYTES);

    // Sent: its bytes are released, and reads of documents are answered again.
    const after = await smallRange();
    expect(after.statusCode).toBe(200);
    expect(json(after).result.vectors[0].metadata.blob).toHaveLength(METADATA_BYTES);
  }, 60_000);

  test('reads one after another on a kept-alive connection each release theirs when answered', async () => {
    const bigPage = () =>
      fetch(`${ctx.baseUrl}/indexes/${endpoint}/range/big`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ cursor: '', limit: DOCS, includeMetadata: true }),
      });
    for (let i = 0; i < 3; i++) {
      const response = await bigPage();
      expect(response.status).toBe(200);
      expect(response.headers.get('connection')).not.toBe('close');
      expect(((await response.json()) as { result: { vectors: unknown[] } }).result.vectors).toHaveLength(DOCS);
    }
    expect((await smallRange()).statusCode).toBe(200);
  }, 60_000);

  test('a client that hangs up before reading its answer releases what its read held', async () => {
    const { port } = new URL(ctx.baseUrl);
    const socket = net.connect(Number(port), '127.0.0.1');
    const body = JSON.stringify({ cursor: '', limit: DOCS, includeMetadata: true });
    socket.write(
      `POST /indexes/${endpoint}/range/big HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    socket.pause();
    socket.on('error', () => {});
    await expect.poll(async () => (await smallRange()).statusCode, { timeout: 10_000, interval: 50 }).toBe(503);
    socket.destroy();
    await expect.poll(async () => (await smallRange()).statusCode, { timeout: 10_000, interval: 50 }).toBe(200);
  }, 60_000);
});
