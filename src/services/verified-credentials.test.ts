import { describe, expect, test } from 'vitest';
import { VERIFIED_CREDENTIAL_TTL_MS, VerifiedCredentials } from './verified-credentials.js';

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

  test('entries expire after the TTL, and checking one does not extend it', () => {
    const { credentials, advance } = cache();
    credentials.remember('a@example.com', 'key-a', HASH);
    advance(VERIFIED_CREDENTIAL_TTL_MS - 1);
    expect(credentials.has('a@example.com', 'key-a', HASH)).toBe(true);
    advance(2);
    expect(credentials.has('a@example.com', 'key-a', HASH)).toBe(false);
  });

  test('forget drops every key of an account at once, and only that account', () => {
    const { credentials } = cache();
    credentials.remember('a@example.com', 'key-a', HASH);
    credentials.remember('a@example.com', 'key-a2', OTHER_HASH);
    credentials.remember('b@example.com', 'key-b', HASH);
    credentials.forget('a@example.com');
    expect(credentials.has('a@example.com', 'key-a', HASH)).toBe(false);
    expect(credentials.has('a@example.com', 'key-a2', OTHER_HASH)).toBe(false);
    expect(credentials.has('b@example.com', 'key-b', HASH)).toBe(true);
  });

  test('remembering again renews the entry; the least recently used goes when full', () => {
    const { credentials, advance } = cache(2);
    credentials.remember('a@example.com', 'key-a', HASH);
    credentials.remember('b@example.com', 'key-b', HASH);
    advance(VERIFIED_CREDENTIAL_TTL_MS / 2);
    credentials.remember('a@example.com', 'key-a', HASH);
    credentials.remember('c@example.com', 'key-c', HASH);
    expect(credentials.size).toBe(2);
    expect(credentials.has('b@example.com', 'key-b', HASH)).toBe(false);
    advance(VERIFIED_CREDENTIAL_TTL_MS / 2 + 1);
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
      JSON.stringify([...(credentials as unknown as { entries: Map<string, unknown> }).entries.entries()]);
    expect(entriesOf(first)).not.toContain('a-very-recognizable-key');
    expect(entriesOf(first)).not.toBe(entriesOf(second));
  });
});
