import { describe, expect, test } from 'vitest';
import { CsvParser } from './csv-parser.js';
import { SourceError } from './source-error.js';
import { feed, sourceErrorOf } from './test-fixtures.js';

const parse = (text: string, size?: number) => feed(new CsvParser('data.csv'), text, size);

describe('CsvParser', () => {
  const tricky = 'id,title,notes\n1,"Hat, red","He said ""hi""\nthen left"\r\n2,plain,\n';

  test.each([1, 3, 1000])('quotes, commas, escaped quotes and newlines inside quotes (chunks of %i)', (size) => {
    expect(parse(tricky, size)).toEqual([
      { fields: ['id', 'title', 'notes'], line: 1 },
      { fields: ['1', 'Hat, red', 'He said "hi"\nthen left'], line: 2 },
      { fields: ['2', 'plain', ''], line: 4 },
    ]);
  });

  test('CRLF split across chunks is one line break; blank lines are skipped; no final newline is fine', () => {
    expect(parse('a,b\r\n\r\n1,2\r\n\n3,4', 1)).toEqual([
      { fields: ['a', 'b'], line: 1 },
      { fields: ['1', '2'], line: 3 },
      { fields: ['3', '4'], line: 5 },
    ]);
  });

  test('empty quoted fields and a quote inside an unquoted field', () => {
    expect(parse('"",x,5" screen\n')).toEqual([{ fields: ['', 'x', '5" screen'], line: 1 }]);
  });

  test('a quote never closed is an error naming the line the record starts on', () => {
    const error = sourceErrorOf(() => parse('id,t\n1,ok\n2,"open\nstill open\n'));
    expect(error.line).toBe(3);
    expect(error.message).toMatch(/^data\.csv:3: /);
  });

  test('text after a closing quote is an error naming its line', () => {
    const error = sourceErrorOf(() => parse('id,t\n1,"a"b\n'));
    expect(error.line).toBe(2);
  });

  test('records before a bad one are yielded before the error is thrown', () => {
    const parser = new CsvParser('data.csv');
    const seen: string[][] = [];
    expect(() => {
      for (const row of parser.push('a\n"b"c\n')) seen.push(row.fields);
    }).toThrow(SourceError);
    expect(seen).toEqual([['a']]);
  });
});
