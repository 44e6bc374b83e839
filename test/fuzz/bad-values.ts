import fc from 'fast-check';

/*
 * Generators of hostile or careless values: the pieces request-arbitraries.ts assembles into
 * requests. Large fixed values are built once (constantFrom shares them between cases).
 */

/** Arrays nested `depth` levels deep, as a value (serialized by JSON.stringify). */
export function nestedArray(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** Objects nested `depth` levels deep. */
export function nestedObject(depth: number, key = 'a'): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { [key]: value };
  return value;
}

/** Strings every text field should refuse or survive. */
const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '\udfff\ud800',
  '😀',
  '\u202e\u0301',
  '..',
  '../../etc/passwd',
  '/',
  '%00',
  '%2e%2e%2f',
  '__proto__',
  'constructor',
  'prototype',
  "'",
  '"',
  '\\',
  "'; DROP TABLE documents; --",
  '$."a"',
  '\n\r\t',
  'NaN',
  'Infinity',
  '-1',
  '1e999',
  '0x10',
  'x'.repeat(5000),
  'é'.repeat(3000),
  '😀'.repeat(1500),
  'word '.repeat(2000),
];

const EXTREME_NUMBERS = [
  0,
  -0,
  -1,
  1.5,
  0.1,
  1e308,
  -1e308,
  Number.MIN_VALUE,
  2 ** 31,
  2 ** 32,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  2 ** 63,
  1e21,
  Number.MAX_SAFE_INTEGER,
];

const NESTED = [1, 10, 62, 63, 64, 65, 200, 3000].flatMap((depth) => [nestedArray(depth), nestedObject(depth)]);

export const nastyString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
);

export const extremeNumber = fc.oneof(fc.constantFrom(...EXTREME_NUMBERS), fc.double(), fc.integer());

/** Any JSON value a careless client could put where another was expected. */
export const badValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  { weight: 3, arbitrary: extremeNumber },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [null], { '': '' }) },
  { weight: 2, arbitrary: fc.constantFrom(...NESTED) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(nastyString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.array(nastyString, { maxLength: 5 }) },
);

const longList = (n: number, item: (i: number) => string, joiner = ', ') =>
  Array.from({ length: n }, (_, i) => item(i)).join(joiner);

/** Filters that must be refused with a 4xx, or must work (long IN lists, long AND chains). */
const NASTY_FILTERS = [
  '',
  ' ',
  '(',
  ')',
  "'",
  "a = 'unterminated",
  'a IN ()',
  'a IN (',
  'a = 1e999',
  'a < -1e400',
  'a[99999999999999999999] = 1',
  'a[0][0][0] = 1',
  '@metadata = 1',
  '@metadata. = 1',
  '@other.a = 1',
  '__proto__ = 1',
  'constructor.prototype.x = 1',
  'a.__proto__.b = 1',
  "a = 'x\u0000y'",
  "a = '\ud800'",
  'a GLOB 1',
  `a GLOB '${'*'.repeat(60_000)}'`,
  `a GLOB '${'*a'.repeat(2000)}'`,
  "a NOT GLOB '[' ",
  'a CONTAINS true AND b NOT CONTAINS 1.5',
  `${'('.repeat(64)}a = 1${')'.repeat(64)}`,
  `${'('.repeat(65)}a = 1${')'.repeat(65)}`,
  `${'('.repeat(5000)}a = 1${')'.repeat(5000)}`,
  `title IN (${longList(1500, (i) => `'t${i}'`)})`,
  `@metadata.n NOT IN (${longList(3000, (i) => String(i))})`,
  `n IN (${longList(1000, (i) => (i % 3 === 0 ? 'true' : i % 3 === 1 ? `'s${i}'` : String(i * 1.5)))})`,
  longList(1000, (i) => `f${i} != ${i}`, ' AND '),
  longList(2000, (i) => `f${i} = ${i}`, ' OR '),
  longList(2001, (i) => `f = ${i}`, ' OR '),
  `a = '${'x'.repeat(70_000)}'`,
  `a = 1 ${'AND '.repeat(10)}`,
  'a = 1 OR OR b = 2',
  'a = true AND b > false',
  "a >= 'x' AND a <= 1",
];

const FIELDS = ['title', 'body', 'n', 'tags', 'a.b', 'a[0]', '@metadata.n', '@metadata.tag', 'missing.x'];
const OPERATORS = ['=', '!=', '<', '<=', '>', '>=', 'GLOB', 'NOT GLOB', 'CONTAINS', 'NOT CONTAINS'];
const literal = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => String(n).replace('Infinity', '9e9')),
  fc.constantFrom('true', 'false'),
  nastyString.map((text) => `'${text.replaceAll("'", "''")}'`),
);

/** Small random filters in (and around) the grammar. */
const { expression: generatedFilter } = fc.letrec<{ expression: string; condition: string }>((tie) => ({
  condition: fc.oneof(
    fc
      .tuple(fc.constantFrom(...FIELDS), fc.constantFrom(...OPERATORS), literal)
      .map(([field, op, value]) => `${field} ${op} ${value}`),
    fc
      .tuple(fc.constantFrom(...FIELDS), fc.boolean(), fc.array(literal, { minLength: 1, maxLength: 6 }))
      .map(([field, negated, values]) => `${field} ${negated ? 'NOT IN' : 'IN'} (${values.join(', ')})`),
  ),
  expression: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('condition'),
    fc
      .tuple(tie('expression'), fc.constantFrom('AND', 'OR', 'and', 'oR'), tie('expression'))
      .map(([left, op, right]) => `${left} ${op} ${right}`),
    tie('expression').map((inner) => `(${inner})`),
  ),
}));

export const filterText = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_FILTERS) },
  { weight: 3, arbitrary: generatedFilter },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
);

/** Range cursors: real-looking, garbage, or of the wrong type. */
export const cursorValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>('', '0', 0, -1, 1e308, 'AA', 'AAAA', '____', '-', '=', 'ZG9jLTE', '%00', '\u0000', null),
  fc.string({ maxLength: 30 }).map((text) => Buffer.from(text).toString('base64url')),
  fc.string({ maxLength: 30 }),
  extremeNumber,
  badValue,
);

/** Path segments: namespaces and ids as they appear in a URL (already encoded, or raw tricks). */
export const pathSegment = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'ns',
      '',
      '..',
      '.',
      '%2e%2e',
      '%2F',
      'a%2Fb',
      '%00',
      'a%00b',
      '%ZZ',
      '%',
      '%ED%A0%80',
      '%C0%AF',
      '%F0%9F%98%80',
      '__proto__',
      'constructor',
      'x'.repeat(2000),
      'x'.repeat(3000),
      '%41'.repeat(800),
      'a/b/c',
      '%20',
      '+',
    ),
  },
  {
    weight: 1,
    arbitrary: nastyString.map((text) =>
      encodeURIComponent((text as string & { isWellFormed(): boolean }).isWellFormed() ? text : 'x'),
    ),
  },
);

export const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
      'application/jsonx',
      'APPLICATION/JSON',
      '*/*',
      ';;;',
    ),
  },
);

/** Raw bodies that are not (valid, reasonable) JSON. */
export const rawBody = fc.oneof(
  fc.constantFrom(
    '{',
    '[',
    '{"a":',
    'null',
    'true',
    '"text"',
    '1e999',
    '-0',
    '{"a":1,"a":2}',
    '{"__proto__":{"polluted":true}}',
    '[{"__proto__":{"x":1}}]',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"query":"x","topK":1e999}',
    '{"query":"x","topK":100000000000000000000000000}',
    '\u0000',
    '"\\u0000"',
    '["\\ud800"]',
    '\ufeff{}',
    `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`,
    `{"x":"${'y'.repeat(1_100_000)}"}`,
  ),
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 80 }),
);
