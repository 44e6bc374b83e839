import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rejection } from '../test-fixtures.js';
import { createEmbedder, createEnricher, createReranker } from './providers.js';

type Handler = (path: string, body: Record<string, unknown>, res: http.ServerResponse) => void;

/** A fake model server on 127.0.0.1; each test installs its handler and reads the recorded calls. */
let handler: Handler;
const calls: { path: string; body: Record<string, unknown>; auth?: string }[] = [];
const server = http.createServer((req, res) => {
  let raw = '';
  req.on('data', (chunk) => {
    raw += chunk;
  });
  req.on('end', () => {
    const body = JSON.parse(raw) as Record<string, unknown>;
    calls.push({ path: req.url ?? '', body, auth: req.headers.authorization });
    handler(req.url ?? '', body, res);
  });
});
let base: string;

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const fakeEmbeddings: Handler = (_path, body, res) => {
  const input = body.input as string[];
  // Reversed order on purpose: clients must place vectors by `index`.
  const data = input.map((text, index) => ({ index, embedding: [text.length, 1, 0] })).reverse();
  json(res, 200, { data });
};

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  calls.length = 0;
});

describe('openai embedder', () => {
  it('batches, orders by index, learns dimensions and sends the key', async () => {
    handler = fakeEmbeddings;
    const embedder = createEmbedder({
      provider: 'openai',
      url: `${base}/v1/`,
      model: 'm',
      apiKey: 'sk-secret',
      batchSize: 2,
    });
    expect(embedder.dimensions).toBeUndefined();
    const vectors = await embedder.embed(['a', 'bb', 'ccc', '']);
    expect(vectors.map((v) => Array.from(v))).toEqual([
      [1, 1, 0],
      [2, 1, 0],
      [3, 1, 0],
      [1, 1, 0], // empty text is sent as one space
    ]);
    expect(embedder.dimensions).toBe(3);
    expect(calls.map((call) => [call.path, call.body.input])).toEqual([
      ['/v1/embeddings', ['a', 'bb']],
      ['/v1/embeddings', ['ccc', ' ']],
    ]);
    expect(calls[0]).toMatchObject({ auth: 'Bearer sk-secret', body: { model: 'm' } });
  });

  it('accepts a base url without /v1 and retries 429/5xx', async () => {
    let failures = 2;
    handler = (path, body, res) =>
      failures-- > 0 ? json(res, failures ? 503 : 429, { error: 'busy' }) : fakeEmbeddings(path, body, res);
    const embedder = createEmbedder({ provider: 'openai', url: base, model: 'm', retries: 2 });
    expect((await embedder.embed(['x']))[0]).toHaveLength(3);
    expect(calls.map((call) => call.path)).toEqual(['/v1/embeddings', '/v1/embeddings', '/v1/embeddings']);
  });

  it('reports a server that is down as upstream_unavailable without secrets', async () => {
    const down = 'http://user:pw@127.0.0.1:1/v1?key=secret';
    const embedder = createEmbedder({ provider: 'openai', url: down, model: 'm', retries: 1, apiKey: 'sk-secret' });
    const error = await rejection(embedder.embed(['x']));
    expect(error.code).toBe('upstream_unavailable');
    expect(error.status).toBe(502);
    expect(error.message).toContain('Embeddings endpoint http://127.0.0.1:1/v1/embeddings is unavailable');
    expect(error.message).not.toMatch(/pw|secret/);
  });

  it('times out slow servers and rejects client errors and wrong dimensions', async () => {
    handler = () => undefined; // never answers
    const slow = createEmbedder({ provider: 'openai', url: base, model: 'm', timeoutMs: 100, retries: 0 });
    expect((await rejection(slow.embed(['x']))).message).toContain('no response within 100 ms');

    handler = (_path, _body, res) => json(res, 400, { error: { message: 'unknown model' } });
    const bad = createEmbedder({ provider: 'openai', url: base, model: 'm', retries: 3 });
    expect((await rejection(bad.embed(['x']))).message).toContain('HTTP 400');
    expect(calls.filter((call) => call.body.model === 'm' && call.path === '/v1/embeddings').length).toBe(2); // timeout + one 400

    handler = fakeEmbeddings;
    const sized = createEmbedder({ provider: 'openai', url: base, model: 'm', dimensions: 8 });
    expect((await rejection(sized.embed(['x']))).message).toContain('got 3 dimensions, expected 8');
  });
});

describe('http reranker', () => {
  const docs = [
    { id: 'a', text: 'first' },
    { id: 'b', text: 'second' },
  ];

  it('speaks Cohere: {results: [{index, relevance_score}]}', async () => {
    handler = (_path, _body, res) =>
      json(res, 200, {
        results: [
          { index: 1, relevance_score: 0.9 },
          { index: 0, relevance_score: 0.2 },
        ],
      });
    const reranker = createReranker({ url: `${base}/v1`, model: 'rerank-x' });
    expect(await reranker.rerank('q', docs)).toEqual([0.2, 0.9]);
    expect(calls[0]).toMatchObject({
      path: '/v1/rerank',
      body: { model: 'rerank-x', query: 'q', documents: ['first', 'second'], texts: ['first', 'second'], top_n: 2 },
    });
  });

  it('speaks TEI: [{index, score}], squashing raw logits into 0..1', async () => {
    handler = (_path, _body, res) =>
      json(res, 200, [
        { index: 0, score: 0.7 },
        { index: 1, score: 0.1 },
      ]);
    expect(await createReranker({ url: base }).rerank('q', docs)).toEqual([0.7, 0.1]);
    handler = (_path, _body, res) =>
      json(res, 200, [
        { index: 0, score: 2 },
        { index: 1, score: -2 },
      ]);
    const [high, low] = await createReranker({ url: base }).rerank('q', docs);
    expect(high).toBeCloseTo(0.881, 3);
    expect(low).toBeCloseTo(0.119, 3);
  });

  it('fails with upstream_unavailable when down or malformed', async () => {
    const error = await rejection(createReranker({ url: 'http://127.0.0.1:1', timeoutMs: 200 }).rerank('q', docs));
    expect(error.code).toBe('upstream_unavailable');
    expect(error.message).toContain('Rerank endpoint http://127.0.0.1:1/rerank');
    handler = (_path, _body, res) => json(res, 200, { nope: true });
    expect((await rejection(createReranker({ url: base }).rerank('q', docs))).message).toContain('expected "results"');
  });
});

describe('http enricher', () => {
  const vocabulary = {
    has: (term: string) => term === 'search',
    candidates: () => ['search'],
  };

  it('asks the chat completions endpoint for terms', async () => {
    handler = (_path, _body, res) =>
      json(res, 200, { choices: [{ message: { content: 'Search, retrieval engine\nignored' } }] });
    expect(await createEnricher({ url: base, model: 'llm' }).expand('serach', vocabulary)).toBe(
      'search retrieval engine',
    );
    expect(calls[0]).toMatchObject({ path: '/v1/chat/completions', body: { model: 'llm' } });
    expect(JSON.stringify(calls[0].body.messages)).toContain('serach');
  });

  it('falls back to builtin enrichment and logs a warning when the endpoint fails', async () => {
    const warnings: unknown[] = [];
    const logger = { info() {}, warn: (obj: object) => warnings.push(obj), error() {} };
    const enricher = createEnricher({ url: 'http://127.0.0.1:1', timeoutMs: 200, logger });
    expect(await enricher.expand('serach', vocabulary)).toBe('search');
    expect(warnings).toHaveLength(1);
  });
});
