import { describe, expect, test, vi } from 'vitest';
import { hitTable } from './commands/search.command.js';
import {
  contentPreview,
  displayWidth,
  formatFields,
  formatLimit,
  formatTable,
  plural,
  printText,
  sparkline,
  truncate,
} from './output.js';

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

  // ESC [2J clears the screen, ESC ] 0;… BEL sets the window title, U+009B is a one-character CSI.
  const hostile = 'zebra \u001b[2J\u001b[31mRED\u001b[0m \u001b]0;pwned\u0007 \u009b31m \u007f';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not appear
  const controls = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

  test('stored text reaches the terminal without control characters (C0, DEL, C1)', () => {
    const table = hitTable([{ id: `id\u001b[31m\u0085`, score: 1, content: { title: hostile } }], 200);
    expect(table).not.toMatch(controls);
    expect(table).toContain('zebra \\x1b[2J\\x1b[31mRED\\x1b[0m \\x1b]0;pwned\\x07 \\x9b31m \\x7f');
    expect(table).toContain('id\\x1b[31m\\x85');
    expect(formatTable(['NAME'], [[hostile]])).not.toMatch(controls);
    expect(formatTable(['NAME', 'ID'], [['a\nb', 'c']])).toBe('NAME    ID\na\\x0ab  c');
    expect(formatFields([['name', hostile]])).not.toMatch(controls);

    const written: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      printText(`renamed index ${hostile}\nsecond line`);
    } finally {
      write.mockRestore();
    }
    expect(written.join('')).not.toMatch(controls);
    expect(written.join('').split('\n')).toHaveLength(3);
  });

  test('ids are cut by code points and columns: no half surrogate pair, wide characters count twice', () => {
    const emoji = `xy${'👍'.repeat(20)}`;
    const wide = `wide-${'日本語'.repeat(10)}`;
    const table = hitTable(
      [emoji, wide, 'short'].map((id) => ({ id, score: 0.5, content: { title: 'quagga' } })),
      120,
    );
    expect(table).not.toContain('\ufffd');
    expect(table).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    const scoreColumns = table
      .split('\n')
      .slice(1)
      .map((row) => displayWidth(row.slice(0, row.indexOf('0.5000'))));
    expect(new Set(scoreColumns).size).toBe(1);
    expect(truncate('👍👍👍', 4)).toBe('👍…');
    expect(truncate('日本語', 6)).toBe('日本語');
    expect(truncate('日本語', 5)).toBe('日本…');
  });

  // The widths Unicode's East Asian Width and emoji presentation give them.
  test.each([
    ['🚀 (transport symbols)', '🚀', 2],
    ['✅ (a dingbat shown as a picture)', '✅', 2],
    ['⭐ ☕ ⚡', '⭐☕⚡', 6],
    ['🟢 🪐', '🟢🪐', 4],
    ['ASCII', 'plain', 5],
    ['a combining accent', 'e\u0301', 1],
    ['an emoji variation selector', '❤\ufe0f', 2],
    ['a family joined with U+200D', '👨\u200d👩\u200d👧', 2],
    ['a zero-width space', 'a\u200bb', 2],
  ])('%s takes its terminal width', (_label, text, width) => {
    expect(displayWidth(text)).toBe(width);
  });
});
