import { expect, test } from 'vitest';
import { decodeCursor, encodeCursor } from './request-checks.js';

test('a cursor decodes to the id it was made from, whatever the id', () => {
  for (const id of ['doc-1', 'a', 'ünïcode/ドキュメント', '🚀 rocket', 'x'.repeat(256)]) {
    expect(decodeCursor(encodeCursor(id))).toBe(id);
  }
  for (const start of ['', '0', undefined]) expect(decodeCursor(start)).toBe('');
});

test('anything range did not return is refused, not read as the end or a restart', () => {
  const made = encodeCursor('doc-1');
  // "garbage" decodes to bytes that are not UTF-8 (they sorted after every id: an empty last page);
  // "AAAA" to NULs and "5" to nothing (they sorted first: a silent restart); a cut-off cursor.
  for (const forged of ['garbage', 'AAAA', '5', made.slice(0, -1), `${made}A`, "' OR 1=1 --", 5, 1.5, null, {}]) {
    expect(() => decodeCursor(forged), JSON.stringify(forged)).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
  }
});
