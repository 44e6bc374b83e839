import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors.js';
import { FILTER_LIMITS, parseFilter } from './filter-parser.js';

const content = (...path: (string | number)[]) => ({ source: 'content', path });

function filterError(input: string): AppError {
  try {
    parseFilter(input);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error(`expected '${input}' to be rejected`);
}

describe('parseFilter', () => {
  it.each([
    ['=', "a = 'x'", 'x'],
    ['!=', 'a != 3', 3],
    ['<', 'a < -2.5', -2.5],
    ['<=', 'a <= 1e3', 1000],
    ['>', "a > 'm'", 'm'],
    ['>=', 'a >= 0', 0],
    ['GLOB', "a GLOB 'x*'", 'x*'],
    ['NOT GLOB', "a not glob '[ab]?'", '[ab]?'],
    ['CONTAINS', "a CONTAINS 'x'", 'x'],
    ['NOT CONTAINS', 'a NOT CONTAINS true', true],
  ])('parses %s', (operator, input, value) => {
    expect(parseFilter(input)).toEqual({ type: 'condition', field: content('a'), operator, value });
  });

  it('parses IN / NOT IN lists of mixed literals', () => {
    expect(parseFilter("a IN ('x', 2, false)")).toMatchObject({ operator: 'IN', value: ['x', 2, false] });
    expect(parseFilter('a not in (1)')).toMatchObject({ operator: 'NOT IN', value: [1] });
  });

  it('gives AND precedence over OR', () => {
    expect(parseFilter('a = 1 OR b = 2 AND c = 3')).toEqual({
      type: 'or',
      operands: [
        { type: 'condition', field: content('a'), operator: '=', value: 1 },
        {
          type: 'and',
          operands: [
            { type: 'condition', field: content('b'), operator: '=', value: 2 },
            { type: 'condition', field: content('c'), operator: '=', value: 3 },
          ],
        },
      ],
    });
  });

  it('lets parentheses override precedence', () => {
    const node = parseFilter('(a = 1 or b = 2) and c = 3');
    expect(node).toMatchObject({ type: 'and', operands: [{ type: 'or' }, { type: 'condition' }] });
  });

  it('parses nested paths, array indexes and @metadata fields', () => {
    expect(parseFilter("a.b.c[2].d = 'x'")).toMatchObject({ field: content('a', 'b', 'c', 2, 'd') });
    expect(parseFilter('@metadata.user.age > 3')).toMatchObject({
      field: { source: 'metadata', path: ['user', 'age'] },
    });
    expect(parseFilter('order.in = 1')).toMatchObject({ field: content('order', 'in') });
  });

  it('reads escaped quotes in both quote styles and case-insensitive keywords', () => {
    expect(parseFilter("a = 'it''s'")).toMatchObject({ value: "it's" });
    expect(parseFilter('a = "say ""hi"""')).toMatchObject({ value: 'say "hi"' });
    expect(parseFilter('a = TRUE aNd b = False')).toMatchObject({
      type: 'and',
      operands: [{ value: true }, { value: false }],
    });
  });

  it.each([
    ["category = 'a' AND", 18, 'expected a field name or ('],
    ['category =', 10, "expected a value after '='"],
    ["category = 'a", 11, "expected a closing ' for the string"],
    ['category ~ 1', 9, "expected a field, value, operator or parenthesis, found '~'"],
    ['category 1', 9, 'expected an operator'],
    ['(a = 1 OR b = 2 c = 3', 16, "expected ')' to close the '(' at position 0"],
    ['a = 1 b = 2', 6, 'expected AND, OR or the end of the filter'],
    ['a IN 1', 5, "expected '(' after 'IN'"],
    ['a IN (1 2)', 8, "expected ',' or ')'"],
    ['a NOT = 1', 6, "expected GLOB, IN or CONTAINS after 'NOT'"],
    ['a GLOB 1', 7, 'expected a string pattern'],
    ['a > true', 4, 'expected a number or string'],
    ['a[x] = 1', 2, "expected an array index after '['"],
    ['@meta.a = 1', 0, "only valid in '@metadata.'"],
    ['@metadata = 1', 10, "expected '.' and a field name"],
    ['', 0, 'expected a field name or ('],
  ])('rejects %j at position %i', (input, position, expected) => {
    const error = filterError(input);
    expect(error.code).toBe('invalid_filter');
    expect(error.status).toBe(400);
    expect(error.message).toContain(`Invalid filter at position ${position}: `);
    expect(error.message).toContain(expected);
  });

  it('limits nesting depth', () => {
    expect(filterError(`${'('.repeat(100)}a = 1${')'.repeat(100)}`).message).toContain('nested parentheses');
  });

  it('refuses filters over the size limits with filter_too_large', () => {
    const long = `a = '${'x'.repeat(FILTER_LIMITS.maxLength)}'`;
    expect(filterError(long).code).toBe('filter_too_large');
    const many = Array.from({ length: FILTER_LIMITS.maxConditions + 1 }, (_, i) => `a = ${i}`).join(' OR ');
    expect(filterError(many).code).toBe('filter_too_large');
    const enough = Array.from({ length: FILTER_LIMITS.maxConditions }, (_, i) => `a = ${i}`).join(' OR ');
    expect(parseFilter(enough)).toMatchObject({ type: 'or' });
  });

  it('refuses numbers out of range and overlong GLOB patterns with invalid_filter', () => {
    expect(filterError('a = 1e999').message).toContain('out of range');
    expect(filterError('a IN (1, -1e400)').code).toBe('invalid_filter');
    const pattern = `a GLOB '${'*'.repeat(FILTER_LIMITS.maxPatternLength + 1)}'`;
    expect(filterError(pattern).message).toContain('GLOB pattern');
  });
});
