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
    ['ASCII', encode('a@b.c:plain-key')],
    ['non-ASCII text (UTF-8)', encode('é@exämple.com:kéy-ü')],
    ['base64url characters', `Basic ${Buffer.from('a@b.c:??>>??').toString('base64url')}`],
    ['no padding', `Basic ${Buffer.from('a@b.c:k').toString('base64').replace(/=+$/, '')}`],
    [
      'padding in the middle',
      `Basic ${Buffer.from('a@b.c:k').toString('base64')}${Buffer.from('x').toString('base64')}`,
    ],
  ])('decodes %s exactly as a Buffer does', (_label, header) => {
    const encoded = header.slice('Basic '.length);
    const text = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = text.indexOf(':');
    expect(parseBasicAuth(header)).toEqual({ email: text.slice(0, colon), apiKey: text.slice(colon + 1) });
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
