import type { FastifyRequest } from 'fastify';
import { describe, expect, test } from 'vitest';
import { AppError } from '../errors.js';
import { checkInput, checkRequestInput, INPUT_LIMITS, textProblem } from './input-guard.js';

function refusal(value: unknown): AppError {
  try {
    checkInput(value, 'body');
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected the value to be refused');
}

const nestedArrays = (levels: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = [value];
  return value;
};

describe('textProblem', () => {
  test.each(['', 'plain', 'é😀', '\ud83d\ude00', 'tab\tnew\nline', '\u007f'])('accepts %j', (text) => {
    expect(textProblem(text)).toBeUndefined();
  });
  test.each(['\u0000', 'a\u0000', '\ud800', 'a\udc00b', '\ude00\ud83d'])('refuses %j', (text) => {
    expect(textProblem(text)).toBeDefined();
  });
});

describe('checkInput', () => {
  test('names the field of the first bad string, keys included', () => {
    const value = [{ id: 'ok', content: { title: 'fine', tags: ['x', 'a\u0000b'] } }];
    const error = refusal(value);
    expect(error.code).toBe('invalid_characters');
    expect(error.details).toEqual([{ field: 'body[0].content.tags[1]', message: expect.stringContaining('NUL') }]);
    const key = refusal({ content: { 'bad\ud800key': 1 } });
    expect(key.details?.[0].field).toBe('body.content.bad\\ud800key');
  });

  test(`allows ${INPUT_LIMITS.maxDepth} levels of nesting and refuses one more, without recursion`, () => {
    expect(() => checkInput(nestedArrays(INPUT_LIMITS.maxDepth), 'body')).not.toThrow();
    expect(refusal(nestedArrays(INPUT_LIMITS.maxDepth + 1)).code).toBe('nesting_too_deep');
    expect(refusal(nestedArrays(200_000)).code).toBe('nesting_too_deep');
  });

  test('leaves numbers, booleans, null and wide values alone', () => {
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, [i, true, null, 'v']]));
    expect(() => checkInput(wide, 'body')).not.toThrow();
    expect(() => checkInput(undefined, 'querystring')).not.toThrow();
  });
});

describe('checkRequestInput', () => {
  const outcome = (check: () => void) => {
    try {
      check();
      return 'accepted';
    } catch (error) {
      const { code, message, details } = error as AppError;
      return { code, message, details };
    }
  };

  test.each([
    [{ id: 'abc' }, { period: '1h', limit: '5' }],
    [{}, {}],
    [{ id: 'a\u0000b' }, {}],
    [{ id: 'ok' }, { 'bad\ud800key': 'x' }],
    [{ id: 'ok' }, { tag: ['a', 'b\u0000'] }],
    [{ id: 'ok' }, { tag: ['a', 'b'] }],
    [{ '*': 'path/\udc00' }, {}],
  ])('params %j, query %j: as checkInput decides', (params, query) => {
    const request = { params, query } as unknown as FastifyRequest;
    const expected = outcome(() => {
      checkInput(params, 'params');
      checkInput(query, 'querystring');
    });
    expect(outcome(() => checkRequestInput(request))).toEqual(expected);
  });
});
