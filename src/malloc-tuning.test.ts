import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { MALLOC_TUNING, mallocTuningHint, runsOnGlibc } from './malloc-tuning.js';

test('npm start runs the server with exactly the malloc settings the code documents', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const start: string = pkg.scripts.start;
  const assignments = Object.fromEntries(
    [...start.matchAll(/\b(MALLOC_[A-Z_]+)=(\S+)/g)].map(([, name, value]) => [name, value]),
  );
  expect(assignments).toEqual(MALLOC_TUNING);
  expect(start).toMatch(/ node bin\/searchplane\.js serve$/);
});

test('on glibc without the settings the hint names every one of them', () => {
  const hint = mallocTuningHint({}, true);
  expect(hint).toContain('MALLOC_MMAP_THRESHOLD_=131072');
  expect(hint).toContain('MALLOC_TRIM_THRESHOLD_=1048576');
  expect(mallocTuningHint({ MALLOC_MMAP_THRESHOLD_: '65536' }, true)).toBeDefined();
});

test('no hint when the operator set them (to any value), or off glibc', () => {
  expect(mallocTuningHint({ MALLOC_MMAP_THRESHOLD_: '65536', MALLOC_TRIM_THRESHOLD_: '0' }, true)).toBeUndefined();
  expect(mallocTuningHint({}, false)).toBeUndefined();
});

test('this Linux machine is detected as glibc', () => {
  // CI runs on Debian (glibc); elsewhere the detection only has to be a boolean.
  if (process.platform === 'linux' && !readFileSync('/proc/self/maps', 'utf8').includes('musl')) {
    expect(runsOnGlibc()).toBe(true);
  } else {
    expect(typeof runsOnGlibc()).toBe('boolean');
  }
});
