import { describe, expect, test } from 'vitest';
import { CsvDocuments, metadataValue } from './csv-documents.js';
import { feed, sourceErrorOf } from './test-fixtures.js';

const documents = (text: string, mapping: { idColumn: string; contentColumns?: string[] }) =>
  feed(new CsvDocuments('items.csv', mapping), text);

describe('CsvDocuments', () => {
  const csv =
    'sku,title,description,price,year,zip,on_sale\n' +
    'A1,"Hat, red",Warm,9.5,1977,01234,true\n' +
    'B2,Cap,,10,,x,false\n';

  test('the id column, the content columns as strings, every other column as typed metadata', () => {
    expect(documents(csv, { idColumn: 'sku', contentColumns: ['title', 'description'] })).toEqual([
      {
        value: {
          id: 'A1',
          content: { title: 'Hat, red', description: 'Warm' },
          metadata: { price: 9.5, year: 1977, zip: '01234', on_sale: true },
        },
        line: 2,
      },
      {
        value: {
          id: 'B2',
          content: { title: 'Cap', description: '' },
          metadata: { price: 10, zip: 'x', on_sale: false },
        },
        line: 3,
      },
    ]);
  });

  test('without --content-columns every column but the id is content and there is no metadata', () => {
    const [first] = documents('id,a,b\n1,x,2\n', { idColumn: 'id' });
    expect(first.value).toEqual({ id: '1', content: { a: 'x', b: '2' } });
  });

  test.each([
    ['an unknown id column', 'id,a\n1,x\n', { idColumn: 'sku' }, 1, /no column "sku".*--id-column/],
    ['an unknown content column', 'id,a\n1,x\n', { idColumn: 'id', contentColumns: ['b'] }, 1, /no column "b"/],
    ['a row with too few fields', 'id,a\n1,x\n2\n', { idColumn: 'id' }, 3, /1 fields, but the header has 2/],
    ['an empty id', 'id,a\n,x\n', { idColumn: 'id' }, 2, /empty id/],
  ])('%s is an error with its line', (_name, text, mapping, line, message) => {
    const error = sourceErrorOf(() => documents(text, mapping));
    expect(error.line).toBe(line);
    expect(error.message).toMatch(message);
  });

  test.each([
    ['1977', 1977],
    ['-4.5', -4.5],
    ['01234', '01234'],
    ['1e3', '1e3'],
    ['1.50', '1.50'],
    ['true', true],
    ['False', 'False'],
    ['text', 'text'],
  ])('metadata cell %j becomes %j', (cell, expected) => {
    expect(metadataValue(cell)).toBe(expected);
  });

  test('a header naming a column twice is an error on line 1, before any row is read', () => {
    const error = sourceErrorOf(() => documents('id,title,year,year\nd1,Alien,1979,2003\n', { idColumn: 'id' }));
    expect(error.line).toBe(1);
    expect(error.reason).toMatch(/"year" more than once/);
    // Names are compared as the header is read: trimmed.
    expect(sourceErrorOf(() => documents('id, t,t \n', { idColumn: 'id' })).line).toBe(1);
  });
});
