import { describe, expect, test } from 'vitest';
import { toImportDocument } from './import-document.js';

describe('toImportDocument', () => {
  test('keeps id, content and object metadata; a numeric id becomes its text; null metadata is dropped', () => {
    expect(toImportDocument('f', { value: { id: 7, content: { a: 1 }, metadata: null }, line: 3 })).toEqual({
      document: { id: '7', content: { a: 1 } },
      line: 3,
    });
    expect(
      toImportDocument('f', { value: { id: 'x', content: {}, metadata: { year: 1 }, extra: true }, line: 1 }).document,
    ).toEqual({ id: 'x', content: {}, metadata: { year: 1 } });
  });

  test.each([
    ['a non-object', [1], /not a JSON object/],
    ['a missing id', { content: {} }, /"id" must be a non-empty string/],
    ['an empty id', { id: '', content: {} }, /"id"/],
    ['string content', { id: 'a', content: 'text' }, /"content" of "a" must be an object/],
    ['array metadata', { id: 'a', content: {}, metadata: [1] }, /"metadata" of "a"/],
  ])('%s is an error with file and line', (_name, value, message) => {
    expect(() => toImportDocument('docs.jsonl', { value, line: 12 })).toThrow(message);
    expect(() => toImportDocument('docs.jsonl', { value, line: 12 })).toThrow(/^docs\.jsonl:12: /);
  });
});
