import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { withoutThroughput } from '../blackbox/support/http-client.js';
import {
  CANARY_DOCUMENT,
  createFuzzTarget,
  dataCall,
  describeRequest,
  type FuzzTarget,
  refill,
  responseProblems,
} from './fuzz-target.js';
import { fuzzRequest } from './request-arbitraries.js';

/**
 * Property: no request, however malformed, gets a 5xx; every error is the plane's JSON envelope
 * with a stable code; and nothing a request without the canary's secrets sends can change the
 * canary's index or document. Fixed seed, so a failure reproduces; FUZZ_RUNS and FUZZ_SEED vary
 * the run (e.g. FUZZ_RUNS=20000 before a release). FUZZ_KEEP_GOING=1 lists every failing
 * request instead of stopping (and shrinking) at the first.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 4000);
const SEED = Number(process.env.FUZZ_SEED ?? 20_251_123);
const KEEP_GOING = process.env.FUZZ_KEEP_GOING === '1';

let target: FuzzTarget;
let canaryRecord: unknown;

beforeAll(async () => {
  target = await createFuzzTarget();
  canaryRecord = withoutThroughput(await canaryIndexRecord());
}, 60_000);
afterAll(async () => target?.close());

async function canaryIndexRecord() {
  const response = await target.app.inject({
    method: 'GET',
    url: `/v2/search/${target.canaryIndex.id}`,
    headers: { authorization: target.canaryAccount.auth },
  });
  expect(response.statusCode).toBe(200);
  return JSON.parse(response.body);
}

test(`${RUNS} fuzzed requests to every route: no 5xx, every error a JSON envelope with a code`, async () => {
  const failures = new Map<string, string>();
  let cases = 0;
  await fc.assert(
    fc.asyncProperty(fuzzRequest(target.world), async (request) => {
      if (cases++ % 100 === 0) await refill(target, cases);
      const response = await target.app.inject(request);
      const problems = responseProblems(request, response);
      if (problems.length === 0) return;
      const report = `${problems.join(', ')} (${response.statusCode} ${response.body.slice(0, 160)}) for ${describeRequest(request)}`;
      if (!KEEP_GOING) throw new Error(report);
      failures.set(`${problems.join()}|${request.method} ${request.url.split('/').slice(0, 4).join('/')}`, report);
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
  expect([...failures.values()]).toEqual([]);
}, 600_000);

test('afterwards: healthy, the canary index and document unchanged, logs without secrets or stacks', async () => {
  const { app, canaryIndex } = target;
  expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  expect(withoutThroughput(await canaryIndexRecord())).toEqual(canaryRecord);
  for (const namespace of ['', 'canary']) {
    const fetched = await dataCall(app, canaryIndex.endpoint, `fetch/${namespace}`, canaryIndex.read_only_token, {
      ids: [CANARY_DOCUMENT.id],
      includeData: true,
      includeMetadata: true,
    });
    expect(JSON.parse(fetched.body)).toEqual({ result: [CANARY_DOCUMENT] });
  }
  const info = JSON.parse((await dataCall(app, canaryIndex.endpoint, 'info', canaryIndex.token)).body).result;
  expect(info.vectorCount).toBe(2);
  expect(Object.keys(info.namespaces).sort()).toEqual(['', 'canary']);

  // The fuzzed index still takes writes and answers searches.
  const { endpoint, token } = target.world.index;
  const upsert = await dataCall(app, endpoint, 'upsert-data/after-fuzz', token, [
    { id: 'after', content: { title: 'still standing after the storm' } },
  ]);
  expect(upsert.statusCode).toBe(200);
  const search = await dataCall(app, endpoint, 'search/after-fuzz', token, { query: 'storm', topK: 1 });
  expect(JSON.parse(search.body).result.map((hit: { id: string }) => hit.id)).toEqual(['after']);

  const logs = target.logs.join('');
  expect(logs.length).toBeGreaterThan(0);
  for (const secret of target.secrets) expect(logs.includes(secret), 'a secret was logged').toBe(false);
  expect(logs).not.toMatch(/\n\s+at |"stack"/);
  const levels = target.logs.map((line) => JSON.parse(line).level as number);
  expect(levels.filter((level) => level >= 50)).toEqual([]);
}, 60_000);
