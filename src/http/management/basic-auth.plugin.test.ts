import { describe, expect, test } from 'vitest';
import { parseBasicAuth } from './basic-auth.plugin.js';

const encode = (value: string | Buffer) => `Basic ${Buffer.from(value).toString('base64')}`;

describe('parseBasicAuth', () => {
  test('splits at the first colon so keys may contain colons', () => {
    expect(parseBasicAuth(encode('a@b.c:key:with:colons'))).toEqual({ email: 'a@b.c', apiKey: 'key:with:colons' });
    expect(parseBasicAuth(`basic ${Buffer.from('a@b.c:k').toString('base64')}`)).toEqual({
      email: 'a@b.c',
      apiKey: 'k',
    });
  });

  test.each([
    undefined,
    '',
    'Bearer x',
    'Basic',
    encode('nocolon'),
    encode(':key'),
    encode('email:'),
    encode('a\u0000b@c.d:key'),
    encode('a\nb@c.d:key'),
    encode('a@b.c:k\u0000ey'),
    encode(Buffer.from([0x61, 0x40, 0x62, 0xff, 0x3a, 0x6b])), // not UTF-8
    encode(`${'a'.repeat(400)}@b.c:key`),
    encode(`a@b.c:${'k'.repeat(2000)}`),
  ])('rejects %j', (header) => {
    expect(parseBasicAuth(header)).toBeUndefined();
  });
});
