import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { json } from '../helpers/app.js';
import { callIndex, createAccountWithIndex, createListeningApp, type ListeningContext } from '../helpers/data-plane.js';

/**
 * Reads hold memory for their documents until their answers are sent. With SEARCHPLANE_READ_BUFFER_MB=4,
 * a page of 1,000 documents with 16 KB of metadata each (64 MB counted: four times what is stored)
 * whose client does not read it keeps its share, and further large reads are refused with 503 until
 * that client has taken its answer, hung up, or run out of time; small reads (up to 4 MiB counted)
 * go on meanwhile.
 */
const DOCS = 1000;
const METADATA_BYTES = 16_000;

interface Node {
  ctx: ListeningContext;
  endpoint: string;
  token: string;
}

async function startNode(env: Record<string, string>): Promise<Node> {
  const ctx = await createListeningApp({ env });
  return { ctx, ...(await indexWithDocuments(ctx, DOCS)) };
}

/** A new account's index holding `count` documents of 16 KB of metadata each. */
async function indexWithDocuments(ctx: ListeningContext, count: number): Promise<Omit<Node, 'ctx'>> {
  const {
    index: { endpoint, token },
  } = await createAccountWithIndex(ctx.app);
  // In upserts of 50 documents (under the 1 MB body limit).
  for (let first = 0; first < count; first += 50) {
    const docs = Array.from({ length: Math.min(50, count - first) }, (_, i) => ({
      id: `doc-${String(first + i).padStart(4, '0')}`,
      content: { text: `document ${first + i}` },
      metadata: { blob: 'x'.repeat(METADATA_BYTES) },
    }));
    const response = await callIndex(ctx.app, endpoint, 'upsert-data/big', token, docs);
    expect(response.statusCode).toBe(200);
  }
  return { endpoint, token };
}

/** One POST of the data plane as raw HTTP/1.1 (for raw sockets: stalled readers, pipelining). */
function rawRequest(index: { endpoint: string; token: string }, route: string, body: unknown): string {
  const text = JSON.stringify(body);
  return (
    `POST /indexes/${index.endpoint}/${route} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${index.token}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`
  );
}

/**
 * Sends `requests` (pipelined on one connection; the first a range of every document with
 * metadata) over a raw socket and, once the first bytes of the answer have come (the read was
 * admitted and holds its share), reads nothing more until `drain()`: the rest of the answer, far
 * larger than the socket buffers, stays in the server meanwhile. No other read runs before
 * `started` resolves, so none can hold a share when this one asks for its own.
 */
function stalledClient(node: Node, requests: string[]) {
  const { port } = new URL(node.ctx.baseUrl);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.on('error', () => {});
  socket.write(requests.join(''));
  const chunks: Buffer[] = [];
  const started = new Promise<string>((resolve) =>
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      chunks.push(chunk);
      resolve(chunk.toString('latin1', 0, 12));
    }),
  );
  return {
    started,
    drain: () =>
      new Promise<string>((resolve, reject) => {
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('end', () => resolve(Buffer.concat(chunks).toString()));
        socket.on('error', reject);
        socket.resume();
        socket.end();
      }),
    destroy: () => socket.destroy(),
  };
}

const fullPage = { cursor: '', limit: DOCS, includeMetadata: true };
const stalledRange = (node: Node) => stalledClient(node, [rawRequest(node, 'range/big', fullPage)]);
/** 100 documents: 6.4 MB counted, more than a small read (4 MiB). */
const largeRange = (node: Node) =>
  callIndex(node.ctx.app, node.endpoint, 'range/big', node.token, { cursor: '', limit: 100, includeMetadata: true });
/** 5 documents: 320 KB counted. */
const smallRange = (node: Node) =>
  callIndex(node.ctx.app, node.endpoint, 'range/big', node.token, { cursor: '', limit: 5, includeMetadata: true });
/** The whole page, which is admitted only while no other read holds anything. */
const fullRange = (node: Node) => callIndex(node.ctx.app, node.endpoint, 'range/big', node.token, fullPage);

describe('memory of reads in flight', () => {
  let node: Node;
  beforeAll(async () => {
    node = await startNode({ SEARCHPLANE_READ_BUFFER_MB: '4' });
  }, 60_000);
  afterAll(async () => {
    await node.ctx.close();
  });

  test('a large read is refused with 503 while a stalled answer holds the budget, and admitted once it is sent', async () => {
    // Nothing held: a read larger than the whole budget is admitted.
    const stalled = stalledRange(node);
    expect(await stalled.started).toBe('HTTP/1.1 200');

    const refused = await largeRange(node);
    expect(refused.statusCode).toBe(503);
    expect(json(refused).code).toBe('service_unavailable');
    expect(refused.headers['retry-after']).toBe('1');
    const ids = Array.from({ length: 100 }, (_, i) => `doc-${String(i).padStart(4, '0')}`);
    const fetched = await callIndex(node.ctx.app, node.endpoint, 'fetch/big', node.token, {
      ids,
      includeMetadata: true,
    });
    expect(fetched.statusCode).toBe(503);
    // One document asked for 100 times is answered 100 times: counted so, and refused.
    const repeated = await callIndex(node.ctx.app, node.endpoint, 'fetch/big', node.token, {
      ids: Array.from({ length: 100 }, () => 'doc-0001'),
      includeMetadata: true,
    });
    expect(repeated.statusCode).toBe(503);
    const searched = await callIndex(node.ctx.app, node.endpoint, 'search/big', node.token, {
      query: 'document',
      topK: 100,
      includeMetadata: true,
    });
    expect(searched.statusCode).toBe(503);
    // Small reads, and reads without data or metadata, go on.
    const small = await smallRange(node);
    expect(small.statusCode).toBe(200);
    expect(json(small).result.vectors[4].metadata.blob).toHaveLength(METADATA_BYTES);
    const idsOnly = await callIndex(node.ctx.app, node.endpoint, 'range/big', node.token, { cursor: '', limit: 50 });
    expect(idsOnly.statusCode).toBe(200);
    expect(json(idsOnly).result.vectors).toHaveLength(50);

    const answer = await stalled.drain();
    expect(answer.startsWith('HTTP/1.1 200 OK')).toBe(true);
    const page = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(page.result.vectors).toHaveLength(DOCS);
    expect(page.result.vectors[DOCS - 1].metadata.blob).toHaveLength(METADATA_BYTES);

    // Sent: its share is released, and large reads are answered again.
    expect((await fullRange(node)).statusCode).toBe(200);
  }, 60_000);

  test('reads one after another on a kept-alive connection each release theirs when answered', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const { port } = new URL(node.ctx.baseUrl);
    const body = JSON.stringify(fullPage);
    const reused: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const request = http.request(
          {
            host: '127.0.0.1',
            port,
            path: `/indexes/${node.endpoint}/range/big`,
            method: 'POST',
            agent,
            headers: { authorization: `Bearer ${node.token}`, 'content-type': 'application/json' },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => resolve({ status: response.statusCode!, text: Buffer.concat(chunks).toString() }));
          },
        );
        request.on('error', reject);
        request.on('socket', () => reused.push(request.reusedSocket));
        request.end(body);
      });
      expect(status).toBe(200);
      expect(JSON.parse(text).result.vectors).toHaveLength(DOCS);
    }
    agent.destroy();
    expect(reused).toEqual([false, true, true]);
    expect((await fullRange(node)).statusCode).toBe(200);
  }, 60_000);

  test('a client that hangs up before reading its answer releases what its read held', async () => {
    const stalled = stalledRange(node);
    expect(await stalled.started).toBe('HTTP/1.1 200');
    expect((await largeRange(node)).statusCode).toBe(503);
    stalled.destroy();
    await expect.poll(async () => (await fullRange(node)).statusCode, { timeout: 10_000, interval: 50 }).toBe(200);
  }, 60_000);
});

describe('an answer that holds read memory and is not taken', () => {
  let node: Node;
  beforeAll(async () => {
    node = await startNode({ SEARCHPLANE_READ_BUFFER_MB: '4', SEARCHPLANE_READ_ANSWER_TIMEOUT_MS: '5000' });
  }, 60_000);
  afterAll(async () => {
    await node.ctx.close();
  });

  test('has its connection closed after SEARCHPLANE_READ_ANSWER_TIMEOUT_MS, which releases its share', async () => {
    const stalled = stalledRange(node);
    expect(await stalled.started).toBe('HTTP/1.1 200');
    expect((await largeRange(node)).statusCode).toBe(503);
    // The client never reads, so only the server's side shows the close: the whole page, which
    // needs nothing else held, is admitted again.
    await expect.poll(async () => (await fullRange(node)).statusCode, { timeout: 20_000, interval: 100 }).toBe(200);
    stalled.destroy();
  }, 60_000);
});

describe('a pipelined read whose connection goes before the answer ahead of it', () => {
  // OpenAI-compatible embeddings: instant, except for a query containing "slowquery" (5 s).
  let embeddings: http.Server;
  let node: ListeningContext;
  let index: { endpoint: string; token: string };
  beforeAll(async () => {
    embeddings = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        const input: string[] = JSON.parse(body).input;
        const answer = () =>
          response.end(
            JSON.stringify({
              data: input.map((text, i) => ({ index: i, embedding: [text.length % 7, 1, 2, 3, 4, 5, 6, 7] })),
            }),
          );
        if (input.some((text) => text.includes('slowquery'))) setTimeout(answer, 5000);
        else answer();
      });
    });
    await new Promise<void>((resolve) => embeddings.listen(0, '127.0.0.1', () => resolve()));
    const { port } = embeddings.address() as net.AddressInfo;
    node = await createListeningApp({
      env: {
        SEARCHPLANE_READ_BUFFER_MB: '1',
        SEARCHPLANE_EMBEDDINGS_URL: `http://127.0.0.1:${port}`,
        SEARCHPLANE_EMBEDDINGS_MODEL: 'fake',
        SEARCHPLANE_EMBEDDINGS_RETRIES: '0',
      },
    });
    ({ index } = await createAccountWithIndex(node.app));
    for (let first = 0; first < 100; first += 50) {
      const docs = Array.from({ length: 50 }, (_, i) => ({
        id: `doc-${first + i}`,
        content: { text: `document ${first + i}` },
        metadata: { blob: 'x'.repeat(METADATA_BYTES) },
      }));
      expect((await callIndex(node.app, index.endpoint, 'upsert-data/big', index.token, docs)).statusCode).toBe(200);
    }
  }, 60_000);
  afterAll(async () => {
    await node.close();
    embeddings.close();
  });

  test('releases its share: its answer, queued behind an unfinished one, never gets a socket', async () => {
    // 100 documents: 6.4 MB counted, a large read, admitted only while no other large read holds a share.
    const hundred = () =>
      callIndex(node.app, index.endpoint, 'range/big', index.token, { cursor: '', limit: 100, includeMetadata: true });
    expect((await hundred()).statusCode).toBe(200);
    const { port } = new URL(node.baseUrl);
    const socket = net.connect(Number(port), '127.0.0.1');
    socket.on('error', () => {});
    // A search whose query takes 5 s to embed (it holds nothing), then the 100 documents, read at
    // once but answered only after the search; the client hangs up before either answer.
    socket.write(
      rawRequest(index, 'search/big', { query: 'slowquery', topK: 5 }) +
        rawRequest(index, 'range/big', { cursor: '', limit: 100, includeMetadata: true }),
    );
    await expect.poll(async () => (await hundred()).statusCode, { timeout: 10_000, interval: 50 }).toBe(503);
    socket.destroy();
    await expect.poll(async () => (await hundred()).statusCode, { timeout: 10_000, interval: 100 }).toBe(200);
  }, 60_000);
});

describe("one index's share of read memory", () => {
  // 150 MiB: one index's large reads may hold 75 MiB (78.6 MB) together.
  let node: Node;
  let other: Omit<Node, 'ctx'>;
  beforeAll(async () => {
    node = await startNode({ SEARCHPLANE_READ_BUFFER_MB: '150' });
    other = await indexWithDocuments(node.ctx, 300);
  }, 60_000);
  afterAll(async () => {
    await node.ctx.close();
  });

  /** 300 documents: 19.2 MB counted (id and metadata, about 16 KB each, four times). */
  const range300 = (index: Omit<Node, 'ctx'>) =>
    callIndex(node.ctx.app, index.endpoint, 'range/big', index.token, {
      cursor: '',
      limit: 300,
      includeMetadata: true,
    });

  test("while one index's stalled answer holds most of its share, its next large read is refused and another index's is answered", async () => {
    // 64.1 MB counted for the stalled page; 83.3 MB with the next one: past the index's share,
    // within the node's 157.3 MB.
    const stalled = stalledRange(node);
    expect(await stalled.started).toBe('HTTP/1.1 200');

    const refused = await range300(node);
    expect(refused.statusCode).toBe(503);
    expect(json(refused).code).toBe('service_unavailable');
    expect(refused.headers['retry-after']).toBe('1');

    const answered = await range300(other);
    expect(answered.statusCode).toBe(200);
    expect(json(answered).result.vectors).toHaveLength(300);

    const answer = await stalled.drain();
    expect(answer.startsWith('HTTP/1.1 200 OK')).toBe(true);
    const after = await range300(node);
    expect(after.statusCode).toBe(200);
    expect(json(after).result.vectors).toHaveLength(300);
  }, 60_000);
});
