import type { IncomingMessage } from 'node:http';
import { expect, test } from 'vitest';
import { requestIdOf } from './request-id.js';

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
