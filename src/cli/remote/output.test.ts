import { describe, expect, test } from 'vitest';
import { hitTable } from './commands/search.command.js';
import { contentPreview, formatFields, formatLimit, formatTable, plural, sparkline } from './output.js';

describe('output', () => {
  test('tables pad every column but the last', () => {
    expect(
      formatTable(
        ['NAME', 'ID'],
        [
          ['movies', '1'],
          ['a', '22'],
        ],
      ),
    ).toBe('NAME    ID\nmovies  1\na       22');
  });

  test('fields align their values', () => {
    expect(
      formatFields([
        ['id', 1],
        ['read-only token', 'x'],
      ]),
    ).toBe('id:               1\nread-only token:  x');
  });

  test('content previews flatten, collapse whitespace and cut with an ellipsis', () => {
    expect(contentPreview({ title: 'Star\n Wars', tags: ['a'] }, 100)).toBe('title: Star Wars · tags: ["a"]');
    expect(contentPreview({ title: 'abcdefghij' }, 8)).toBe('title: …');
  });

  test('limits, plurals and sparklines', () => {
    expect(formatLimit(-1)).toBe('unlimited');
    expect(formatLimit(2000000)).toBe('2,000,000');
    expect(plural(1, 'document')).toBe('1 document');
    expect(plural(1200, 'document')).toBe('1,200 documents');
    expect(sparkline([0, 1, 2, 4])).toBe('▁▂▄█');
    expect(sparkline([0, 0])).toBe('▁▁');
  });

  test('search hits as a table sized to the terminal', () => {
    const table = hitTable([{ id: 'm1', score: 0.78123, content: { title: 'Star Wars '.repeat(20) } }], 60);
    const [header, row] = table.split('\n');
    expect(header).toMatch(/^#\s+ID\s+SCORE\s+CONTENT$/);
    expect(row).toMatch(/^1\s+m1\s+0\.7812\s+title: Star Wars.*…$/);
    expect(row.length).toBeLessThanOrEqual(60);
    expect(hitTable([])).toBe('no hits');
  });
});
