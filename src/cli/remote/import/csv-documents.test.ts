import { describe, expect, test } from 'vitest';
import { csvDocuments, metadataValue } from './csv-documents.js';
import { collect, pieces } from './test-fixtures.js';

type Mapping = { idColumn: string; contentColumns?: string[] };
const read = (text: string, mapping: Mapping, size?: number) =>
  collect(csvDocuments('items.csv', pieces(text, size), mapping));
const documents = async (text: string, mapping: Mapping, size?: number) => {
  const { values, error } = await read(text, mapping, size);
  if (error) throw error;
  return values;
};
const errorOf = async (text: string, mapping: Mapping) => {
  const { error } = await read(text, mapping);
  if (!error) throw new Error('expected a SourceError');
  return error;
};

describe('CsvDocuments', () => {
  const csv =
    'sku,title,description,price,year,zip,on_sale\n' +
    'A1,"Hat, red",Warm,9.5,1977,01234,true\n' +
    'B2,Cap,,10,,x,false\n';

  test('the id column, the content columns as strings, every other column as typed metadata', async () => {
    expect(await documents(csv, { idColumn: 'sku', contentColumns: ['title', 'description'] })).toEqual([
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

  test('without --content-columns every column but the id is content and there is no metadata', async () => {
    const [first] = await documents('id,a,b\n1,x,2\n', { idColumn: 'id' });
    expect(first.value).toEqual({ id: '1', content: { a: 'x', b: '2' } });
  });

  test.each([
    ['an unknown id column', 'id,a\n1,x\n', { idColumn: 'sku' }, 1, /no column "sku".*--id-column/],
    ['an unknown content column', 'id,a\n1,x\n', { idColumn: 'id', contentColumns: ['b'] }, 1, /no column "b"/],
    ['a row with too few fields', 'id,a\n1,x\n2\n', { idColumn: 'id' }, 3, /1 fields, but the header has 2/],
    ['an empty id', 'id,a\n,x\n', { idColumn: 'id' }, 2, /empty id/],
  ])('%s is an error with its line', async (_name, text, mapping, line, message) => {
    const error = await errorOf(text, mapping);
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

  test('a header naming a column twice is an error on line 1, before any row is read', async () => {
    const error = await errorOf('id,title,year,year\nd1,Alien,1979,2003\n', { idColumn: 'id' });
    expect(error.line).toBe(1);
    expect(error.reason).toMatch(/"year" more than once/);
    // Names are compared as the header is read: trimmed.
    expect((await errorOf('id, t,t \n', { idColumn: 'id' })).line).toBe(1);
  });

  const tricky = 'id,title,notes\n1,"Hat, red","He said ""hi""\nthen left"\r\n2,plain,\n';

  test.each([1, 3, 1000])(
    'quotes, commas, escaped quotes and line breaks inside quotes (pieces of %i)',
    async (size) => {
      expect(await documents(tricky, { idColumn: 'id' }, size)).toEqual([
        { value: { id: '1', content: { title: 'Hat, red', notes: 'He said "hi"\nthen left' } }, line: 2 },
        { value: { id: '2', content: { title: 'plain', notes: '' } }, line: 4 },
      ]);
    },
  );

  test('CRLF, LF and CR all end a record, blank lines are skipped, no final line break is fine', async () => {
    const rows = await documents('id,t\r\n\r\n1,a\r\n\n2,b\r3,c', { idColumn: 'id' }, 1);
    expect(rows.map(({ value, line }) => [(value as { id: string }).id, line])).toEqual([
      ['1', 3],
      ['2', 5],
      ['3', 6],
    ]);
  });

  test('a quote inside an unquoted field is kept as text, and so is text after a closing quote', async () => {
    const [row] = await documents('id,t,u\n1,5" screen,"a"b\n', { idColumn: 'id' });
    expect(row.value).toEqual({ id: '1', content: { t: '5" screen', u: '"a"b' } });
  });

  test('a quote never closed is an error naming the line its record starts on, after the records before it', async () => {
    const { values, error } = await read('id,t\n1,ok\n\n2,"open\nstill open\n', { idColumn: 'id' });
    expect(values.map(({ line }) => line)).toEqual([2]);
    expect(error?.line).toBe(4);
    expect(error?.message).toMatch(/^items\.csv:4: a quoted field is never closed/);
  });
});
