import { describe, expect, test } from 'vitest';
import { JsonArrayParser } from './json-array-parser.js';
import { feed, sourceErrorOf } from './test-fixtures.js';

const parse = (text: string, size?: number) => feed(new JsonArrayParser('docs.json'), text, size);

describe('JsonArrayParser', () => {
  const text =
    '[\n  {"id": "a", "content": {"t": "x ] } [ \\" ,"}},\n  {"id": "b", "n": [1, [2]]},\n  7, "s", null\n]\n';

  test.each([1, 5, 1000])(
    'elements with brackets and quotes inside strings, and their lines (chunks of %i)',
    (size) => {
      expect(parse(text, size)).toEqual([
        { value: { id: 'a', content: { t: 'x ] } [ " ,' } }, line: 2 },
        { value: { id: 'b', n: [1, [2]] }, line: 3 },
        { value: 7, line: 4 },
        { value: 's', line: 4 },
        { value: null, line: 4 },
      ]);
    },
  );

  test('an empty array has no elements', () => {
    expect(parse(' [ ] ')).toEqual([]);
  });

  test.each([
    ['not an array', '{"id":"a"}', 1, /expected a JSON array/],
    ['an empty file', '', 1, /empty file/],
    ['a trailing comma', '[{"id":"a"},\n]', 2, /trailing/],
    ['a missing comma', '[{"id":"a"}\n{"id":"b"}]', 2, /expected "," or "]"/],
    ['an unclosed array', '[{"id":"a"},\n{"id":"b"}', 2, /not closed/],
    ['text after the array', '[]\nx', 2, /after the end/],
    ['a bad element', '[\n{"id":"a"},\n{"id": tru}\n]', 3, /element is not valid JSON/],
  ])('%s is an error with its line', (_name, input, line, message) => {
    const error = sourceErrorOf(() => parse(input));
    expect(error.line).toBe(line);
    expect(error.message).toMatch(message);
    expect(error.message.startsWith(`docs.json:${line}: `)).toBe(true);
  });
});
