import { readFileSync } from 'node:fs';
import semver from 'semver';
import { expect, test } from 'vitest';

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8'));

/** The oldest release of each supported major line: `npm ci` must not warn on any of them. */
const SUPPORTED_NODE = ['20.19.0', '22.13.0', '24.0.0'];

test('package.json declares the supported Node lines and no older or in-between ones', () => {
  const range = pkg.engines.node;
  for (const version of SUPPORTED_NODE) expect(semver.satisfies(version, range), version).toBe(true);
  for (const version of ['18.20.0', '20.18.0', '21.7.0', '22.12.0', '23.11.0']) {
    expect(semver.satisfies(version, range), version).toBe(false);
  }
});

test('every locked package accepts every supported Node version (npm ci prints no EBADENGINE)', () => {
  const refusals: string[] = [];
  for (const [location, entry] of Object.entries<{ version?: string; engines?: { node?: string } }>(lock.packages)) {
    const range = entry.engines?.node;
    if (location === '' || range === undefined) continue;
    for (const version of SUPPORTED_NODE) {
      if (!semver.satisfies(version, range))
        refusals.push(`${location}@${entry.version} needs node ${range}, not ${version}`);
    }
  }
  expect(refusals).toEqual([]);
});
