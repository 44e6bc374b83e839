import type { IncomingMessage } from 'node:http';
import { expect, test } from 'vitest';
import { dataDomainRewriter } from './host-routing.js';

const rewrite = dataDomainRewriter('Search.Example.com');
const request = (host: string | undefined, url: string) => ({ headers: { host }, url }) as unknown as IncomingMessage;

test('{endpoint}.{domain} maps to /indexes/{endpoint}{url}, with or without a port, any case', () => {
  expect(rewrite(request('brave-fox-1.search.example.com', '/search/movies'))).toBe(
    '/indexes/brave-fox-1/search/movies',
  );
  expect(rewrite(request('BRAVE-FOX-1.search.example.com:8443', '/info?x=1'))).toBe('/indexes/brave-fox-1/info?x=1');
  expect(rewrite(request('brave-fox-1.search.example.com', '/'))).toBe('/indexes/brave-fox-1');
});

test('other hosts keep their URL', () => {
  for (const host of [
    'search.example.com',
    'a.b.search.example.com',
    'example.com',
    'evil-search.example.com',
    undefined,
  ]) {
    expect(rewrite(request(host, '/v2/search'))).toBe('/v2/search');
  }
});
