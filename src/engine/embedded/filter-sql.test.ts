import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentInput } from '../contract.js';
import { prepareDocuments } from '../query/document-validation.js';
import { parseFilter } from '../query/filter-parser.js';
import { tempDir } from '../test-fixtures.js';
import { filterLabels } from './document-reads.js';
import { DocumentStore } from './document-store.js';
import { compileFilter } from './filter-sql.js';

const docs: DocumentInput[] = [
  {
    id: 'laptop',
    content: {
      name: 'Laptop Pro',
      price: 1200,
      inStock: true,
      tags: ['tech', 'work'],
      specs: { ram: 16, ports: ['usb-c', 'hdmi'] },
    },
    metadata: { brand: 'Acme', rating: 4.5 },
  },
  {
    id: 'phone',
    content: { name: 'Phone mini', price: 600, inStock: false, tags: ['tech'], specs: { ram: 8, ports: ['usb-c'] } },
    metadata: { brand: 'Zeta', rating: 4 },
  },
  { id: 'chair', content: { name: 'Office chair', price: '250', inStock: true, tags: ['home', 'work'] } },
  { id: 'mug', content: { name: "Dad's mug", price: 12.5, tags: [] }, metadata: { brand: 'Acme' } },
];

describe('compileFilter (evaluated by SQLite)', () => {
  const temp = tempDir();
  let store: DocumentStore;
  let nsId: number;

  beforeAll(() => {
    store = new DocumentStore(`${temp.dir}/filters.sqlite`);
    const prepared = prepareDocuments(docs);
    store.write(
      '',
      prepared,
      prepared.map(() => new Float32Array(4)),
      -1,
    );
    nsId = store.namespaceId('')!;
  });
  afterAll(() => {
    store.close();
    temp.remove();
  });

  const ids = (filter: string) => {
    const labels = filterLabels(store, nsId, compileFilter(parseFilter(filter), 'd'));
    return labels.map((label) => docs[label - 1].id).sort();
  };

  it.each([
    ["name = 'Laptop Pro'", ['laptop']],
    ['price = 1200.0', ['laptop']],
    ["name != 'Laptop Pro'", ['chair', 'mug', 'phone']],
    ['price < 600', ['mug']], // the string "250" is not a number
    ['price <= 600', ['mug', 'phone']],
    ['price > 500', ['laptop', 'phone']],
    ['price >= 12.5', ['laptop', 'mug', 'phone']],
    ["price > '100'", ['chair']], // string comparison only sees strings
    ['inStock = true', ['chair', 'laptop']],
    ['inStock = false', ['phone']],
    ['inStock != true', ['mug', 'phone']], // missing field counts as "not true"
    ["name GLOB '*o*'", ['laptop', 'phone']], // 'Office' has only an uppercase O
    ["name GLOB 'laptop*'", []], // GLOB is case-sensitive
    ["name GLOB '[LP]*'", ['laptop', 'phone']],
    ["name GLOB 'Phone min?'", ['phone']],
    ["name NOT GLOB '*o*'", ['chair', 'mug']],
    ["name IN ('Phone mini', 'Office chair', 1)", ['chair', 'phone']],
    ['price NOT IN (600, 1200)', ['chair', 'mug']],
    ["tags CONTAINS 'work'", ['chair', 'laptop']],
    ["tags NOT CONTAINS 'tech'", ['chair', 'mug']],
    ["name CONTAINS 'mug'", ['mug']], // substring on strings
    ["specs.ports CONTAINS 'hdmi'", ['laptop']],
    ['specs.ram >= 8 AND specs.ram < 16', ['phone']],
    ["specs.ports[0] = 'usb-c'", ['laptop', 'phone']],
    ["tags[1] = 'work'", ['chair', 'laptop']],
    ["@metadata.brand = 'Acme'", ['laptop', 'mug']],
    ['@metadata.rating > 4', ['laptop']],
    ["name = 'Dad''s mug'", ['mug']],
    ["(price > 1000 OR @metadata.brand = 'Zeta') AND inStock = false", ['phone']],
    ["price > 1000 OR @metadata.brand = 'Zeta' AND inStock = true", ['laptop']],
    ["tags CONTAINS 'home' OR tags CONTAINS 'tech' AND price < 1000", ['chair', 'phone']],
    ["missing.field = 'x' OR name GLOB 'Office*'", ['chair']],
  ])('%s', (filter, expected) => {
    expect(ids(filter)).toEqual(expected);
  });

  it.each([
    ["name IN ('Laptop Pro', true, 600, 'nope')", ['laptop']], // types never mix: 600 is not a name
    ['price IN (600, 12.5, true)', ['mug', 'phone']],
    ['inStock IN (true, false)', ['chair', 'laptop', 'phone']],
    ["inStock NOT IN (true, 'x')", ['mug', 'phone']],
    ["price IN ('250', 1200)", ['chair', 'laptop']],
  ])('mixed IN list: %s', (filter, expected) => {
    expect(ids(filter)).toEqual(expected);
  });

  it('runs an IN list of 4,000 values', () => {
    const values = Array.from({ length: 4000 }, (_, i) => `'v${i}'`);
    values[3210] = "'Phone mini'";
    expect(ids(`name IN (${values.join(', ')})`)).toEqual(['phone']);
    expect(ids(`name NOT IN (${values.join(', ')})`)).toEqual(['chair', 'laptop', 'mug']);
    const numbers = Array.from({ length: 4000 }, (_, i) => i * 1000 + 0.5);
    expect(ids(`price IN (${numbers.join(', ')}, 600)`)).toEqual(['phone']);
  });

  it('runs 1,000 AND-ed and 2,000 OR-ed conditions', () => {
    const ands = Array.from({ length: 999 }, (_, i) => `price != ${i + 1}`);
    expect(ids(`inStock = true AND ${ands.join(' AND ')}`)).toEqual(['chair', 'laptop']);
    const ors = Array.from({ length: 1999 }, (_, i) => `specs.ram = ${i + 100}`);
    expect(ids(`${ors.join(' OR ')} OR @metadata.brand = 'Zeta'`)).toEqual(['phone']);
    // Parenthesized groups of long chains, within the nesting limit.
    const group = (n: number, field: string) =>
      `(${Array.from({ length: n }, (_, i) => `${field} != ${i + 2000}`).join(' AND ')})`;
    expect(ids(`${group(500, 'price')} AND (${group(400, 'specs.ram')} OR name = 'x') AND price > 1000`)).toEqual([
      'laptop',
    ]);
  });
});
