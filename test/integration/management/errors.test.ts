import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestApp, json, type TestContext } from '../../helpers/app.js';
import { createAccount, type TestAccount } from '../../helpers/factories.js';

let ctx: TestContext;
let account: TestAccount;

beforeAll(async () => {
  ctx = await createTestApp();
  account = await createAccount(ctx.app);
});
afterAll(async () => ctx.close());

const post = (payload: string | Buffer, contentType = 'application/json') =>
  ctx.app.inject({
    method: 'POST',
    url: '/v2/search',
    headers: { authorization: account.auth, 'content-type': contentType },
    payload,
  });

describe('bad input', () => {
  test('invalid JSON → 400 invalid_json', async () => {
    const response = await post('{"name": "a",');
    expect(response.statusCode).toBe(400);
    expect(json(response).code).toBe('invalid_json');
  });

  test('a prototype-poisoning body is refused', async () => {
    const response = await post('{"name":"a","region":"eu-west-1","type":"payg","__proto__":{"admin":true}}');
    expect(response.statusCode).toBe(400);
    expect(json(response).code).toBe('invalid_json');
  });

  test.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])(
    'content type %s → 415 unsupported_media_type',
    async (contentType) => {
      const response = await post('name=a', contentType);
      expect(response.statusCode).toBe(415);
      expect(json(response).code).toBe('unsupported_media_type');
    },
  );

  test('JSON is read as UTF-8: another charset is 415 on non-ASCII text, and harmless on ASCII', async () => {
    const accented = '{"name":"caf\u00e9","region":"eu-west-1"}';
    for (const contentType of ['application/json; charset=utf-16', 'application/json;charset="latin1"']) {
      const response = await post(accented, contentType);
      expect(response.statusCode, contentType).toBe(415);
      expect(json(response).code, contentType).toBe('unsupported_media_type');
    }
    const ascii = '{"name":"a","region":"eu-west-1"}';
    for (const [contentType, body] of [
      ['application/json', accented],
      ['application/json; charset=UTF-8', accented],
      ['application/json;charset=utf8', accented],
      ['application/json; charset=ISO-8859-1', ascii],
    ]) {
      const response = await post(body, contentType);
      expect(response.statusCode, contentType).toBe(400);
      expect(json(response).code, contentType).toBe('invalid_request'); // parsed: the type is missing
    }
  });

  /** UTF-32LE bytes of ASCII text (Node has no encoder for it). */
  const utf32le = (text: string) => Buffer.from([...text].flatMap((char) => [char.charCodeAt(0), 0, 0, 0]));

  test('UTF-16 and UTF-32 bodies are 415, labelled or not, even when their text is ASCII (their bytes hold NULs)', async () => {
    const ascii = '{"name":"a","region":"eu-west-1"}';
    const utf16 = Buffer.from(ascii, 'utf16le');
    for (const [contentType, body] of [
      ['application/json; charset=utf-16le', utf16],
      ['application/json; charset=UTF-16', Buffer.concat([Buffer.from([0xff, 0xfe]), utf16])],
      ['application/json; charset=utf-32', utf32le(ascii)],
      ['application/json; charset=latin1', utf16], // mislabelled: the NULs still show it
      ['application/json', utf16], // unlabelled
      ['application/json; charset=utf-8', Buffer.from(ascii, 'utf16le').swap16()], // UTF-16BE
    ] as const) {
      const response = await post(body, contentType);
      expect(response.statusCode, contentType).toBe(415);
      expect(json(response).code, contentType).toBe('unsupported_media_type');
    }
  });

  test('bytes that are not UTF-8 → 400 invalid_characters, never stored as U+FFFD', async () => {
    const utf8 = (text: string) => Buffer.from(text, 'utf8');
    for (const [label, bad] of [
      ['a stray byte', [0xff]],
      ['latin-1 é', [0xe9]],
      ['an overlong slash', [0xc0, 0xaf]],
      ['a surrogate encoded as UTF-8', [0xed, 0xa0, 0x80]],
      ['a truncated sequence', [0xe2, 0x82]],
    ] as const) {
      const body = Buffer.concat([
        utf8('{"name":"bad'),
        Buffer.from(bad),
        utf8('","region":"eu-west-1","type":"payg"}'),
      ]);
      for (const contentType of ['application/json', 'application/json; charset=utf-8']) {
        const response = await post(body, contentType);
        expect([response.statusCode, json(response).code], `${label}, ${contentType}`).toEqual([
          400,
          'invalid_characters',
        ]);
      }
    }
    const list = await ctx.app.inject({ method: 'GET', url: '/v2/search', headers: { authorization: account.auth } });
    expect(JSON.stringify(json(list))).not.toContain('\ufffd');
  });

  test('a body over 1 MiB → 413 payload_too_large', async () => {
    const response = await post(
      JSON.stringify({ name: 'a', region: 'eu-west-1', type: 'payg', pad: 'x'.repeat(1_100_000) }),
    );
    expect(response.statusCode).toBe(413);
    expect(json(response).code).toBe('payload_too_large');
  });

  test('a JSON body that is not an object → 400 invalid_request', async () => {
    const response = await post('["a"]');
    expect(response.statusCode).toBe(400);
    expect(json(response).code).toBe('invalid_request');
  });

  test('an empty body with a JSON content type on a body-less route is accepted', async () => {
    const [instance] = json(
      await ctx.app.inject({ method: 'GET', url: '/v2/messaging/users', headers: { authorization: account.auth } }),
    );
    const response = await ctx.app.inject({
      method: 'POST',
      url: `/v2/messaging/enable-prodpack/${instance.id}`,
      headers: { authorization: account.auth, 'content-type': 'application/json' },
      payload: '',
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('"OK"');
  });

  test.each([
    ['GET', '/nope'],
    ['GET', '/v2'],
    ['POST', '/v2/searches'],
    ['PUT', '/v2/search'],
    ['GET', '/v2/search/a/b/c'],
  ] as const)('unknown route %s %s → 404 route_not_found', async (method, url) => {
    const response = await ctx.app.inject({ method, url, headers: { authorization: account.auth } });
    expect(response.statusCode).toBe(404);
    expect(json(response).code).toBe('route_not_found');
  });

  test('an unexpected failure is a 500 without internals', async () => {
    const original = ctx.app.services.indexes.list;
    ctx.app.services.indexes.list = async () => {
      throw new Error('SECRET internal detail at /src/services/search-index.service.ts:42');
    };
    try {
      const response = await ctx.app.inject({
        method: 'GET',
        url: '/v2/search',
        headers: { authorization: account.auth },
      });
      expect(response.statusCode).toBe(500);
      expect(json(response)).toEqual({ error: 'Internal server error', code: 'internal_error' });
      expect(response.body).not.toContain('SECRET');
      expect(response.body).not.toContain('.ts');
    } finally {
      ctx.app.services.indexes.list = original;
    }
  });

  test('GET /healthz needs no credentials', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ status: 'ok' });
  });
});
