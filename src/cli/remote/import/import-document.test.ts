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

  test('a numeric id up to 2^53-1 is taken as its decimal text', () => {
    const id = (value: unknown) => toImportDocument('f', { value: { id: value, content: {} }, line: 1 }).document.id;
    expect(id(JSON.parse('9007199254740991'))).toBe('9007199254740991');
    expect(id(JSON.parse('1e3'))).toBe('1000');
    expect(id(-7)).toBe('-7');
  });

  test.each([
    ['a non-object', [1], /not a JSON object/],
    ['a missing id', { content: {} }, /"id" must be a non-empty string/],
    ['an empty id', { id: '', content: {} }, /"id"/],
    ['string content', { id: 'a', content: 'text' }, /"content" of "a" must be an object/],
    ['array metadata', { id: 'a', content: {}, metadata: [1] }, /"metadata" of "a"/],
    // JSON.parse gives 9007199254740992 for 9007199254740993: two ids would become one.
    ['an id past 2^53', JSON.parse('{"id":9007199254740993,"content":{}}'), /write it as a string/],
    ['an id with a fraction', { id: 1.5, content: {} }, /numeric "id" 1\.5 is not a whole number/],
    ['a negative id past -2^53', { id: -(2 ** 53), content: {} }, /write it as a string/],
  ])('%s is an error with file and line', (_name, value, message) => {
    expect(() => toImportDocument('docs.jsonl', { value, line: 12 })).toThrow(message);
    expect(() => toImportDocument('docs.jsonl', { value, line: 12 })).toThrow(/^docs\.jsonl:12: /);
  });
});
