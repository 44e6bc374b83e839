import { describe, expect, test } from 'vitest';
import { JsonLinesParser } from './jsonl-parser.js';
import { SourceError } from './source-error.js';
import { feed } from './test-fixtures.js';

const parse = (text: string, size?: number) => feed(new JsonLinesParser('docs.jsonl'), text, size);

describe('JsonLinesParser', () => {
  test.each([1, 7, 1000])('one value per line with its line number, CRLF and blank lines (chunks of %i)', (size) => {
    expect(parse('{"id":"a"}\r\n\n  \n{"id":"b","n":[1,2]}\n{"id":"c"}', size)).toEqual([
      { value: { id: 'a' }, line: 1 },
      { value: { id: 'b', n: [1, 2] }, line: 4 },
      { value: { id: 'c' }, line: 5 },
    ]);
  });

  test('a line that is not JSON is an error naming the file and line, after the lines before it', () => {
    const parser = new JsonLinesParser('docs.jsonl');
    const seen: unknown[] = [];
    let caught: unknown;
    try {
      for (const { value } of parser.push('{"id":"a"}\n\n{"id": oops}\n{"id":"c"}\n')) seen.push(value);
    } catch (error) {
      caught = error;
    }
    expect(seen).toEqual([{ id: 'a' }]);
    expect(caught).toBeInstanceOf(SourceError);
    expect((caught as SourceError).line).toBe(3);
    expect((caught as SourceError).message).toMatch(/^docs\.jsonl:3: not valid JSON/);
  });

  test('a truncated last line is an error at end()', () => {
    const parser = new JsonLinesParser('docs.jsonl');
    expect([...parser.push('{"id":"a"}\n{"id":')]).toHaveLength(1);
    expect(() => [...parser.end()]).toThrow(/docs\.jsonl:2:/);
  });

  // How long this takes belongs in no unit test; what the piecewise pending text must keep is
  // every line whole, however the chunks cut it.
  test('lines cut anywhere by small chunks, a long one included, are read whole', () => {
    const lines = [{ id: 'a' }, { id: 'huge', content: { t: 'a '.repeat(200_000) } }, { id: 'b' }];
    const text = `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
    expect(parse(text, 1000)).toEqual(lines.map((value, i) => ({ value, line: i + 1 })));
  });
});
