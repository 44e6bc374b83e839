import type { IncomingMessage } from 'node:http';
import { expect, test } from 'vitest';
import { randomUuid, requestIdOf } from './request-id.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const withHeader = (value: string | string[] | undefined) =>
  ({ headers: value === undefined ? {} : { 'x-request-id': value } }) as unknown as IncomingMessage;

test('a printable ASCII id of at most 128 characters is kept', () => {
  for (const id of ['a', 'req-42', 'x'.repeat(128), 'with space', '~!@#$%^&*()_+{}|:"<>?']) {
    expect(requestIdOf(withHeader(id))).toBe(id);
  }
});

test('anything else is replaced by a fresh UUID', () => {
  for (const value of [
    undefined,
    '',
    'x'.repeat(129),
    'caf\u00e9',
    'line\nbreak',
    'tab\there',
    'nul\u0000',
    ['a', 'b'],
  ]) {
    expect(requestIdOf(withHeader(value))).toMatch(UUID);
  }
  expect(requestIdOf(withHeader(undefined))).not.toBe(requestIdOf(withHeader(undefined)));
});

test('random UUIDs are version 4, variant 1, and distinct across refills of the random pool', () => {
  const ids = new Set<string>();
  // More than two refills of the pool (4,096 UUIDs each).
  for (let i = 0; i < 10_000; i++) {
    const id = randomUuid();
    expect(id).toMatch(UUID);
    ids.add(id);
  }
  expect(ids.size).toBe(10_000);
  // Every hex digit outside the fixed version and variant bits turns up in every position.
  const sample = [...ids];
  for (const position of [0, 9, 15, 20, 35]) {
    expect(new Set(sample.map((id) => id[position])).size).toBe(16);
  }
});
