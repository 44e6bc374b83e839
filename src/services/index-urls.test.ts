import { expect, test } from 'vitest';
import { indexUrls } from './index-urls.js';

test('path-based URL under the public base, with or without a trailing slash or path', () => {
  expect(indexUrls('calm-otter-12345-eu1', 'http://127.0.0.1:8080')).toEqual({
    url: 'http://127.0.0.1:8080/indexes/calm-otter-12345-eu1',
  });
  expect(indexUrls('e', 'https://search.example.com/api/')).toEqual({
    url: 'https://search.example.com/api/indexes/e',
  });
});

test('host-based URL when a data domain is set', () => {
  expect(indexUrls('e', 'http://127.0.0.1:8080', 'search.local')).toEqual({
    url: 'http://127.0.0.1:8080/indexes/e',
    host_url: 'http://e.search.local:8080',
  });
  expect(indexUrls('e', 'https://api.example.com', 'idx.example.com').host_url).toBe('https://e.idx.example.com');
});
