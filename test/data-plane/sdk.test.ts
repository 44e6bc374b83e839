import type { Search } from '@upstash/search';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  createAccountWithIndex,
  createListeningApp,
  type ListeningContext,
  sdkClient,
  type TestIndex,
} from '../helpers/data-plane.js';

/**
 * The official `@upstash/search` SDK, unmodified, against a listening server: every SDK method
 * end to end, as a user of the hosted service would call them.
 */
let ctx: ListeningContext;
let index: TestIndex;
let client: Search;

type Movie = {
  title: string;
  genre: string;
  plot: string;
  year: number;
};
type MovieMeta = {
  poster: string;
  rating: number;
};

const MOVIES = [
  {
    id: 'star-wars',
    content: {
      title: 'Star Wars',
      genre: 'sci-fi',
      plot: 'A farm boy joins rebels fighting an evil galactic empire in space',
      year: 1977,
    },
    metadata: { poster: 'sw.jpg', rating: 9 },
  },
  {
    id: 'inception',
    content: {
      title: 'Inception',
      genre: 'thriller',
      plot: 'A thief enters dreams to plant an idea in a mind',
      year: 2010,
    },
    metadata: { poster: 'in.jpg', rating: 8 },
  },
  {
    id: 'interstellar',
    content: {
      title: 'Interstellar',
      genre: 'sci-fi',
      plot: 'Astronauts travel through a wormhole in space to save humanity',
      year: 2014,
    },
    metadata: { poster: 'is.jpg', rating: 8 },
  },
  {
    id: 'amelie',
    content: {
      title: 'Amelie',
      genre: 'romance',
      plot: 'A shy waitress in Paris decides to change the lives of others',
      year: 2001,
    },
    metadata: { poster: 'am.jpg', rating: 7 },
  },
];

beforeAll(async () => {
  ctx = await createListeningApp();
  index = (await createAccountWithIndex(ctx.app)).index;
  client = sdkClient(ctx.baseUrl, index.endpoint, index.token);
});
afterAll(async () => ctx.close());

test('upsert → search → fetch → range → delete → reset → info with the SDK', async () => {
  const movies = client.index<Movie, MovieMeta>('movies');
  expect(await movies.upsert(MOVIES)).toBe('Success');

  const hits = await movies.search({ query: 'space rebels empire', limit: 3 });
  expect(hits.length).toBeGreaterThan(0);
  expect(hits.length).toBeLessThanOrEqual(3);
  expect(hits[0].id).toBe('star-wars');
  expect(hits[0].content).toEqual(MOVIES[0].content);
  expect(hits[0].metadata).toEqual(MOVIES[0].metadata);
  for (const hit of hits) expect(hit.score).toBeGreaterThanOrEqual(0);
  for (const hit of hits) expect(hit.score).toBeLessThanOrEqual(1);
  const scores = hits.map((hit) => hit.score);
  expect(scores).toEqual([...scores].sort((a, b) => b - a));

  expect(await movies.fetch(['inception', 'missing', 'amelie'])).toEqual([
    { id: 'inception', content: MOVIES[1].content, metadata: MOVIES[1].metadata },
    null,
    { id: 'amelie', content: MOVIES[3].content, metadata: MOVIES[3].metadata },
  ]);
  const byPrefix = await movies.fetch({ prefix: 'in' });
  expect(byPrefix.map((doc) => doc?.id).sort()).toEqual(['inception', 'interstellar']);

  const seen: string[] = [];
  let cursor = '';
  let pages = 0;
  do {
    const page = await movies.range({ cursor, limit: 3 });
    seen.push(...page.documents.map((doc) => doc.id));
    for (const doc of page.documents) expect(doc.content).toBeDefined();
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== '' && pages < 10);
  expect(cursor).toBe('');
  expect(pages).toBe(2);
  expect(seen.sort()).toEqual(MOVIES.map((movie) => movie.id).sort());
  const prefixed = await movies.range({ cursor: '', limit: 10, prefix: 'in' });
  expect(prefixed.documents.map((doc) => doc.id)).toEqual(['inception', 'interstellar']);
  expect(prefixed.nextCursor).toBe('');

  expect(await movies.delete(['amelie', 'missing'])).toEqual({ deleted: 1 });
  expect(await movies.delete({ prefix: 'inter' })).toEqual({ deleted: 1 });
  expect(await movies.delete({ filter: "genre = 'thriller'" })).toEqual({ deleted: 1 });
  expect(
    (await movies.fetch(['star-wars', 'amelie', 'interstellar', 'inception'])).map((doc) => doc?.id ?? null),
  ).toEqual(['star-wars', null, null, null]);
  expect(await movies.info()).toEqual({ documentCount: 1, pendingDocumentCount: expect.any(Number) });

  expect(await movies.reset()).toBe('Success');
  expect(await movies.info()).toEqual({ documentCount: 0, pendingDocumentCount: 0 });
  expect(await movies.search({ query: 'space' })).toEqual([]);
});

test('upsert replaces a document by id, and accepts a single document', async () => {
  const books = client.index('books');
  await books.upsert({ id: 'b1', content: { title: 'Dune' }, metadata: { edition: 1 } });
  await books.upsert([{ id: 'b1', content: { title: 'Dune Messiah' } }]);
  expect(await books.fetch(['b1'])).toEqual([{ id: 'b1', content: { title: 'Dune Messiah' } }]);
  expect((await books.info()).documentCount).toBe(1);
});

test('namespaces are isolated, listed, counted in info and deleted with deleteIndex', async () => {
  const a = client.index('ns-a');
  const b = client.index('ns b with spaces');
  await a.upsert([{ id: 'same', content: { text: 'apples and pears' } }]);
  await b.upsert([
    { id: 'same', content: { text: 'oranges' } },
    { id: 'other', content: { text: 'lemons' } },
  ]);
  expect(await a.fetch(['same'])).toEqual([{ id: 'same', content: { text: 'apples and pears' } }]);
  expect(await b.fetch(['same'])).toEqual([{ id: 'same', content: { text: 'oranges' } }]);
  expect(await client.listIndexes()).toEqual(expect.arrayContaining(['ns-a', 'ns b with spaces']));

  const info = await client.info();
  expect(info.indexes['ns-a']).toEqual({ documentCount: 1, pendingDocumentCount: expect.any(Number) });
  expect(info.indexes['ns b with spaces'].documentCount).toBe(2);
  expect(info.documentCount).toBeGreaterThanOrEqual(3);
  expect(info.diskSize).toBeGreaterThan(0);

  expect(await b.deleteIndex()).toBe('Success');
  expect(await client.listIndexes()).not.toContain('ns b with spaces');
  await expect(b.deleteIndex()).rejects.toThrow(/namespace/i);
  expect(await a.fetch(['same'])).toHaveLength(1);
});

test('filters: the SDK’s structured filters and filter strings narrow the results', async () => {
  const films = client.index<Movie, MovieMeta>('filtered');
  await films.upsert(MOVIES);
  const scifi = await films.search({ query: 'space', filter: { genre: { equals: 'sci-fi' } }, limit: 10 });
  expect(scifi.map((hit) => hit.id).sort()).toEqual(['interstellar', 'star-wars']);
  const recent = await films.search({
    query: 'a',
    filter: { AND: [{ year: { greaterThan: 2000 } }, { genre: { notEquals: 'thriller' } }] },
    limit: 10,
    semanticWeight: 1,
  });
  expect(recent.map((hit) => hit.id).sort()).toEqual(['amelie', 'interstellar']);
  const globbed = await films.search({ query: 'space', filter: "title GLOB 'Star*'", limit: 10 });
  expect(globbed.map((hit) => hit.id)).toEqual(['star-wars']);
  await expect(films.search({ query: 'x', filter: 'genre = = broken' })).rejects.toThrow();
});

test('search options: semanticWeight 0 is keyword-only, reranking and enrichment are accepted', async () => {
  const films = client.index<Movie, MovieMeta>('options');
  await films.upsert(MOVIES);
  const keyword = await films.search({ query: 'wormhole', semanticWeight: 0, limit: 10 });
  expect(keyword.map((hit) => hit.id)).toEqual(['interstellar']);
  const semantic = await films.search({ query: 'wormhole', semanticWeight: 1, limit: 10 });
  expect(semantic.length).toBeGreaterThanOrEqual(1);
  const reranked = await films.search({ query: 'dreams thief', reranking: true, limit: 2 });
  expect(reranked[0].id).toBe('inception');
  const enriched = await films.search({ query: 'wormhloe', semanticWeight: 0, inputEnrichment: true, limit: 5 });
  expect(enriched.map((hit) => hit.id)).toContain('interstellar');
  const plain = await films.search({ query: 'wormhloe', semanticWeight: 0, inputEnrichment: false, limit: 5 });
  expect(plain).toEqual([]);
});

test('errors reach the SDK as thrown errors carrying the server message', async () => {
  const docs = client.index('limits');
  await expect(docs.upsert([{ id: 'big', content: { text: 'x'.repeat(4097) } }])).rejects.toThrow(/4096/);
  await expect(docs.upsert([{ id: 'i'.repeat(257), content: { text: 'x' } }])).rejects.toThrow(/256/);
  await expect(
    docs.upsert([{ id: 'meta', content: { text: 'x' }, metadata: { blob: 'm'.repeat(49 * 1024) } }]),
  ).rejects.toThrow(/metadata/);
  expect(await docs.upsert([{ id: 'ok', content: { text: 'x'.repeat(4096) } }])).toBe('Success');
  const readOnly = sdkClient(ctx.baseUrl, index.endpoint, index.read_only_token).index('limits');
  await expect(readOnly.upsert([{ id: 'x', content: { a: 'b' } }])).rejects.toThrow(
    'Forbidden: /upsert-data is not allowed with a read-only token',
  );
  expect(await readOnly.fetch(['ok'])).toHaveLength(1);
  const wrong = sdkClient(ctx.baseUrl, index.endpoint, 'wrong-token').index('limits');
  await expect(wrong.search({ query: 'x' })).rejects.toThrow('Unauthorized: Invalid auth token');
});

test('numbers and booleans of content are searchable with their field names', async () => {
  const records = client.index('records');
  await records.upsert([1, 2, 3, 10, 11, 12].map((data) => ({ id: `r${data}`, content: { data } })));
  await records.upsert([
    { id: 'film-1977', content: { title: 'Star Wars', year: 1977, released: true } },
    { id: 'film-2027', content: { title: 'Sequel', year: 2027, released: false } },
  ]);
  for (const semanticWeight of [0, 0.75]) {
    const [first] = await records.search({ query: 'data 1', limit: 3, semanticWeight });
    expect(first.id).toBe('r1');
    expect((await records.search({ query: 'data 12', limit: 1, semanticWeight }))[0].id).toBe('r12');
  }
  expect((await records.search({ query: '1977', limit: 1, semanticWeight: 0 }))[0].id).toBe('film-1977');
  expect((await records.search({ query: 'released false', limit: 1, semanticWeight: 0 }))[0].id).toBe('film-2027');
  // What is stored and returned is the content as written.
  expect(await records.fetch(['r1'])).toEqual([{ id: 'r1', content: { data: 1 } }]);
});
