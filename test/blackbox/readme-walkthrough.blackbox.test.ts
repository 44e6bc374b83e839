import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { useStoreTarget } from './support/lifecycle.js';
import {
  assignmentsOf,
  fillCopiedValues,
  parseDocumented,
  shapeMismatches,
  walkthroughSteps,
} from './support/readme-walkthrough.js';
import { startServer } from './support/searchplane-process.js';

const run = promisify(execFile);
const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const steps = walkthroughSteps(README);

/** Index of the first step whose script matches. */
const stepOf = (pattern: RegExp) => steps.findIndex((step) => pattern.test(step.script));

describe('the README walk-through as written', () => {
  test('goes create → get/list/rename → upsert → search → usage → messaging → reset-password → delete', () => {
    const order = [
      stepOf(/-X POST \$BASE\/v2\/search \\/),
      stepOf(/\/v2\/search\/\$ID\/rename/),
      stepOf(/\/upsert-data\//),
      stepOf(/\/search\/movies/),
      stepOf(/\/stats\?period/),
      stepOf(/\/v2\/messaging\/users/),
      stepOf(/\/reset-password/),
      stepOf(/-X DELETE \$BASE\/v2\/search\/\$ID/),
    ];
    expect(
      order.every((index) => index >= 0),
      JSON.stringify(order),
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(order.at(-1)).toBe(steps.length - 1);
    expect(steps.filter((step) => step.documented !== undefined).length).toBeGreaterThanOrEqual(10);
  });

  test('every documented output parses', () => {
    for (const step of steps) {
      if (step.documented !== undefined)
        expect(() => parseDocumented(step.documented!), `line ${step.line}`).not.toThrow();
    }
  });
});

describe('the shape check', () => {
  test('accepts the same shape with other values, and elided members and items', () => {
    expect(shapeMismatches(parseDocumented('{"id":"a","n":1,"tags":["x", …]}'), { id: 'b', n: 2, tags: [] })).toEqual([
      '$.tags: expected at least 1 items, got 0',
    ]);
    expect(shapeMismatches(parseDocumented('{"id":"a",…}'), { id: 'b', extra: true })).toEqual([]);
    expect(
      shapeMismatches(parseDocumented('[{"x":"…","y":0}, …]'), [
        { x: 'q', y: 1 },
        { x: 'r', y: 2 },
      ]),
    ).toEqual([]);
    expect(shapeMismatches(parseDocumented('"OK"'), 'OK')).toEqual([]);
  });

  test('reports missing and undocumented keys, wrong types, item counts and scalars', () => {
    expect(shapeMismatches(parseDocumented('{"id":"a","n":1}'), { id: 'a', m: 1 })).toEqual([
      '$.n: missing',
      '$.m: not documented',
    ]);
    expect(shapeMismatches(parseDocumented('{"result":[{"score":0.5}]}'), { result: [{ score: '0.5' }] })).toEqual([
      '$.result[0].score: expected number, got string',
    ]);
    expect(shapeMismatches(parseDocumented('[1,2]'), [1])).toEqual(['$: expected 2 items, got 1']);
    expect(shapeMismatches(parseDocumented('"OK"'), { error: 'nope' })).toHaveLength(1);
  });
});

const target = useStoreTarget();

test('runs top to bottom against a fresh server, each command succeeding with the documented shape', async () => {
  const server = await startServer(target.args, { LOG_LEVEL: 'warn' });
  // The banner may arrive in a later chunk than the "listening" line.
  const [, apiKey] = await server.waitForOutput(/api key:\s+(\S+)/);

  // curl fails (exit 22) on any HTTP error status, so "succeeds" means a 2xx for every request.
  const shell = ['set -euo pipefail', 'curl() { command curl --fail-with-body --show-error "$@"; }'];
  const outputs: unknown[] = [];
  for (const step of steps) {
    const script = fillCopiedValues(step.script, outputs)
      .replaceAll('<api key>', apiKey)
      .replaceAll('http://127.0.0.1:8080', server.url);
    const commands = script.replace(/(^|\s+)#.*$/gm, '');
    expect(commands, `README line ${step.line}: a placeholder is left`).not.toMatch(/…|<[a-z ]+>/);
    const where = `README line ${step.line}:\n${script}`;
    const result = await run('bash', ['-c', [...shell, script].join('\n')], { timeout: 15_000 }).catch(
      (error: { code?: number; stdout?: string; stderr?: string }) => {
        throw new Error(`${where}\nexited ${error.code}: ${error.stdout ?? ''}${error.stderr ?? ''}`);
      },
    );
    shell.push(...assignmentsOf(script));
    const stdout = result.stdout.trim();
    if (!/^curl /m.test(script)) {
      // A block that only sets variables.
      expect(stdout, where).toBe('');
      expect(step.documented, where).toBeUndefined();
      continue;
    }
    let output: unknown;
    try {
      output = JSON.parse(stdout);
    } catch {
      throw new Error(`${where}\nprinted something that is not JSON: ${stdout.slice(0, 300)}`);
    }
    outputs.push(output);
    if (step.documented !== undefined) {
      expect(shapeMismatches(parseDocumented(step.documented), output), `${where}\n→ ${stdout.slice(0, 500)}`).toEqual(
        [],
      );
    }
  }
  expect(outputs.length).toBeGreaterThanOrEqual(15);
  // About twenty processes one after another: give a loaded machine time.
}, 120_000);
