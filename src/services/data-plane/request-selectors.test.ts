import { expect, test } from 'vitest';
import { parseDeleteBody, parseFetchBody } from './request-selectors.js';

test('fetch bodies: id arrays, {ids}, {prefix}, with read flags', () => {
  const none = { includeData: false, includeMetadata: false };
  expect(parseFetchBody(['a', 1])).toEqual({ selector: { ids: ['a', '1'] }, flags: none });
  expect(parseFetchBody({ ids: ['a'], includeData: true, includeMetadata: null })).toEqual({
    selector: { ids: ['a'] },
    flags: { includeData: true, includeMetadata: false },
  });
  expect(parseFetchBody({ prefix: 'p-', includeMetadata: true })).toEqual({
    selector: { prefix: 'p-' },
    flags: { includeData: false, includeMetadata: true },
  });
  expect(parseFetchBody({ ids: ['a'], prefix: null })).toMatchObject({ selector: { ids: ['a'] } });
  const bodies = [undefined, null, 'a', {}, { ids: 'a' }, { ids: [{}] }, { prefix: 'p', includeData: 'yes' }];
  for (const bad of [...bodies, { ids: ['a'], prefix: 'p' }]) {
    expect(() => parseFetchBody(bad), JSON.stringify(bad)).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
  }
});

test('delete bodies: one id, id arrays, {ids}, {prefix}, {filter}', () => {
  expect(parseDeleteBody('a')).toEqual({ ids: ['a'] });
  expect(parseDeleteBody(7)).toEqual({ ids: ['7'] });
  expect(parseDeleteBody(['a', 'b'])).toEqual({ ids: ['a', 'b'] });
  expect(parseDeleteBody({ ids: ['a'] })).toEqual({ ids: ['a'] });
  expect(parseDeleteBody({ prefix: 'p' })).toEqual({ prefix: 'p' });
  expect(parseDeleteBody({ filter: "a = 'b'" })).toEqual({ filter: "a = 'b'" });
  // An empty prefix or filter would delete everything: that is what reset is for.
  expect(parseDeleteBody({ ids: ['a'], prefix: null, filter: undefined })).toEqual({ ids: ['a'] });
  // Several selectors: refused, not guessed (a prefix without the filter meant to narrow it).
  const several = [
    { prefix: 'b', filter: "g = 'keep'" },
    { ids: ['z'], filter: "g = 'x'" },
    { ids: ['z'], prefix: '' },
  ];
  for (const bad of [undefined, {}, { prefix: '' }, { filter: ' ' }, { ids: [null] }, true, ...several]) {
    expect(() => parseDeleteBody(bad), JSON.stringify(bad)).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
  }
});
