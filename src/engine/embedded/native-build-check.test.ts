import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { checkNativeBuild, nativeBuildMarker } from './native-build-check.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'native-build-'));
const marker = path.join(dir, 'searchplane-build.json');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const flags =
  (...names: string[]) =>
  () =>
    new Set(names);

test('a build for instructions this CPU has passes and names its level', () => {
  writeFileSync(marker, JSON.stringify({ march: 'x86-64-v3', requires: ['avx2', 'fma'] }));
  expect(checkNativeBuild(marker, flags('sse2', 'avx2', 'fma'))).toBe('x86-64-v3');
});

test('a build for instructions this CPU lacks is refused with the missing ones and the fix', () => {
  writeFileSync(marker, JSON.stringify({ march: 'x86-64-v4', requires: ['avx2', 'avx512f', 'avx512bw'] }));
  expect(() => checkNativeBuild(marker, flags('avx2'))).toThrow(
    /x86-64-v4 and this CPU lacks avx512f, avx512bw: run `npm ci`/,
  );
});

test('the portable build (no marker) needs nothing', () => {
  expect(checkNativeBuild(path.join(dir, 'absent.json'), flags())).toBeUndefined();
});

test('the build npm ci made on this machine runs here', () => {
  const real = nativeBuildMarker();
  const expected = existsSync(real) ? JSON.parse(readFileSync(real, 'utf8')).march : undefined;
  expect(checkNativeBuild()).toBe(expected);
});
