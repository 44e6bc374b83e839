import { describe, expect, test } from 'vitest';
import { AuthFailureThrottle, parseBasicAuth } from './basic-auth.plugin.js';

const encode = (value: string) => `Basic ${Buffer.from(value).toString('base64')}`;

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

  test.each([undefined, '', 'Bearer x', 'Basic', encode('nocolon'), encode(':key'), encode('email:')])(
    'rejects %s',
    (header) => {
      expect(parseBasicAuth(header)).toBeUndefined();
    },
  );
});

describe('AuthFailureThrottle', () => {
  test('blocks past the limit until the window ends', () => {
    let now = 0;
    const throttle = new AuthFailureThrottle(2, () => now);
    throttle.recordFailure('a');
    throttle.recordFailure('a');
    expect(throttle.retryAfter('a')).toBe(0);
    throttle.recordFailure('a');
    expect(throttle.retryAfter('a')).toBe(60);
    expect(throttle.retryAfter('b')).toBe(0);
    now = 30_000;
    expect(throttle.retryAfter('a')).toBe(30);
    now = 60_000;
    expect(throttle.retryAfter('a')).toBe(0);
  });
});
