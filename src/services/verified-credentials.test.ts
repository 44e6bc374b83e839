import { describe, expect, test } from 'vitest';
import { constantTimeEqual, VERIFIED_CREDENTIAL_TTL_MS, VerifiedCredentials } from './verified-credentials.js';

const HASH = 'scrypt$16384$8$1$salt$hash';
const OTHER_HASH = 'scrypt$16384$8$1$salt2$hash2';

function cache(maxEntries?: number) {
  let now = Date.parse('2026-11-22T12:00:00Z');
  const credentials = new VerifiedCredentials(() => now, VERIFIED_CREDENTIAL_TTL_MS, maxEntries);
  return { credentials, advance: (ms: number) => (now += ms) };
}

describe('VerifiedCredentials', () => {
  test('a remembered key matches only itself, for its account and stored hash', () => {
    const { credentials } = cache();
    credentials.remember('a@example.com', 'key-a', HASH);
    expect(credentials.has('a@example.com', 'key-a', HASH)).toBe(true);
    expect(credentials.has('a@example.com', 'key-a-', HASH)).toBe(false);
    expect(credentials.has('a@example.com', 'key-', HASH)).toBe(false);
    expect(credentials.has('b@example.com', 'key-a', HASH)).toBe(false);
  });

  test('a wrong key leaves the entry in place (guesses cost the owner nothing)', () => {
    const { credentials } = cache();
    credentials.remember('a@example.com', 'key-a', HASH);
    expect(credentials.has('a@example.com', 'guess', HASH)).toBe(false);
    expect(credentials.has('a@example.com', 'key-a', HASH)).toBe(true);
  });

  test('a changed stored hash (key rotated anywhere) drops the entry', () => {
    const { credentials } = cache();
    credentials.remember('a@example.com', 'key-a', HASH);
    expect(credentials.has('a@example.com', 'key-a', OTHER_HASH)).toBe(false);
    // Gone, not just refused: even the old hash does not bring it back.
    expect(credentials.has('a@example.com', 'key-a', HASH)).toBe(false);
    expect(credentials.size).toBe(0);
  });

  test('entries expire after the TTL', () => {
    const { credentials, advance } = cache();
    credentials.remember('a@example.com', 'key-a', HASH);
    advance(VERIFIED_CREDENTIAL_TTL_MS - 1);
    expect(credentials.has('a@example.com', 'key-a', HASH)).toBe(true);
    advance(1);
    expect(credentials.has('a@example.com', 'key-a', HASH)).toBe(false);
  });

  test('forget drops an account at once', () => {
    const { credentials } = cache();
    credentials.remember('a@example.com', 'key-a', HASH);
    credentials.forget('a@example.com');
    expect(credentials.has('a@example.com', 'key-a', HASH)).toBe(false);
  });

  test('remembering again renews the entry; the least recently verified goes when full', () => {
    const { credentials, advance } = cache(2);
    credentials.remember('a@example.com', 'key-a', HASH);
    credentials.remember('b@example.com', 'key-b', HASH);
    advance(VERIFIED_CREDENTIAL_TTL_MS / 2);
    credentials.remember('a@example.com', 'key-a', HASH);
    credentials.remember('c@example.com', 'key-c', HASH);
    expect(credentials.size).toBe(2);
    expect(credentials.has('b@example.com', 'key-b', HASH)).toBe(false);
    advance(VERIFIED_CREDENTIAL_TTL_MS / 2);
    // Renewed half a TTL ago, so still valid; c too.
    expect(credentials.has('a@example.com', 'key-a', HASH)).toBe(true);
    expect(credentials.has('c@example.com', 'key-c', HASH)).toBe(true);
  });

  test('keeps no key in clear, and its digests mean nothing to another process', () => {
    const first = cache().credentials;
    const second = cache().credentials;
    first.remember('a@example.com', 'a-very-recognizable-key', HASH);
    second.remember('a@example.com', 'a-very-recognizable-key', HASH);
    const entriesOf = (credentials: VerifiedCredentials) =>
      JSON.stringify([...(credentials as unknown as { entries: Map<string, unknown> }).entries]);
    expect(entriesOf(first)).not.toContain('a-very-recognizable-key');
    expect(entriesOf(first)).not.toBe(entriesOf(second));
  });
});

test('constantTimeEqual compares whole strings', () => {
  expect(constantTimeEqual('abc', 'abc')).toBe(true);
  expect(constantTimeEqual('abc', 'abd')).toBe(false);
  expect(constantTimeEqual('abc', 'xbc')).toBe(false);
  expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  expect(constantTimeEqual('', '')).toBe(true);
});

const headerEntries = (credentials: VerifiedCredentials) =>
  (credentials as unknown as { headers: Map<number, { tagLow: number }> }).headers;

describe('VerifiedCredentials headers', () => {
  const header = `Basic ${Buffer.from('a@example.com:key-a').toString('base64')}`;

  test('a remembered header is known only as itself, with its login, email and stored hash', () => {
    const { credentials } = cache();
    credentials.rememberHeader(header, 'A@example.com', 'a@example.com', HASH);
    expect(credentials.header(header)).toMatchObject({
      login: 'A@example.com',
      email: 'a@example.com',
      storedHash: HASH,
    });
    expect(credentials.header(`${header} `)).toBeUndefined();
    expect(credentials.header(header.toLowerCase())).toBeUndefined();
    // Nothing of the header is kept but its keyed tag.
    expect(JSON.stringify([...headerEntries(credentials)])).not.toContain(header.slice(6));
  });

  test('a header must match all 64 bits of its tag, not only the map key', () => {
    const { credentials } = cache();
    credentials.rememberHeader(header, 'a@example.com', 'a@example.com', HASH);
    const [entry] = headerEntries(credentials).values();
    // As if another header's tag had the same high 53 bits: the low bits the key leaves out differ.
    const tagLow = entry.tagLow;
    entry.tagLow = (tagLow ^ 1) >>> 0;
    expect(credentials.header(header)).toBeUndefined();
    entry.tagLow = tagLow;
    expect(credentials.header(header)).toBeDefined();
  });

  test('a header with a character above U+00FF (which Node never parses) is not remembered', () => {
    const { credentials } = cache();
    const wide = `${header}\u20ac`;
    credentials.rememberHeader(wide, 'a@example.com', 'a@example.com', HASH);
    expect(credentials.headerCount).toBe(0);
    expect(credentials.header(wide)).toBeUndefined();
    // Nor is it taken for the header without that character, once that one is remembered.
    credentials.rememberHeader(header, 'a@example.com', 'a@example.com', HASH);
    expect(credentials.header(wide)).toBeUndefined();
    expect(credentials.header(header)).toBeDefined();
  });

  test('headers expire after the TTL', () => {
    const { credentials, advance } = cache();
    credentials.rememberHeader(header, 'a@example.com', 'a@example.com', HASH);
    advance(VERIFIED_CREDENTIAL_TTL_MS - 1);
    expect(credentials.header(header)).toBeDefined();
    advance(1);
    expect(credentials.header(header)).toBeUndefined();
    expect(credentials.headerCount).toBe(0);
  });

  test('forget drops the headers of that account only', () => {
    const { credentials } = cache();
    const other = `Basic ${Buffer.from('b@example.com:key-b').toString('base64')}`;
    credentials.rememberHeader(header, 'a@example.com', 'a@example.com', HASH);
    credentials.rememberHeader(other, 'b@example.com', 'b@example.com', HASH);
    credentials.forget('a@example.com');
    expect(credentials.header(header)).toBeUndefined();
    expect(credentials.header(other)).toBeDefined();
  });

  test('headers are bounded: the oldest goes first', () => {
    const { credentials } = cache(2);
    const headers = ['1', '2', '3'].map((n) => `Basic ${Buffer.from(`a@example.com:key-${n}`).toString('base64')}`);
    for (const each of headers) credentials.rememberHeader(each, 'a@example.com', 'a@example.com', HASH);
    expect(credentials.headerCount).toBe(2);
    expect(credentials.header(headers[0])).toBeUndefined();
    expect(credentials.header(headers[2])).toBeDefined();
  });
});
