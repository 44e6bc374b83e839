import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestApp, injectAs, json, type TestContext } from '../helpers/app.js';
import { callIndex, makeDocs } from '../helpers/data-plane.js';
import { createAccount, createIndex, type TestAccount } from '../helpers/factories.js';

/**
 * Deleting an index while its data is read, written and described: every concurrent request
 * either succeeds or says the index is gone (404, or 401 on the data plane once its token no
 * longer exists), never a 5xx, on both backends. ROUNDS (default 50) rounds of create, fill, then
 * a delete racing searches, fetches, ranges, upserts, info, stats and account stats.
 */
const ROUNDS = Number(process.env.RACE_ROUNDS ?? 50);

let ctx: TestContext;
let account: TestAccount;
/** Another index of the account: using it closes the racing one (one open index at most). */
let evictor: { endpoint: string; token: string };

beforeAll(async () => {
  ctx = await createTestApp({ env: { SEARCHPLANE_MAX_OPEN_INDEXES: '1' } });
  account = await createAccount(ctx.app);
  evictor = await createIndex(ctx.app, account, { name: 'evictor' });
});
afterAll(async () => ctx.close());

test(`${ROUNDS} rounds of delete racing reads, writes and stats: 200 or gone, never 5xx`, async () => {
  const seen = new Map<string, number>();
  for (let round = 0; round < ROUNDS; round++) {
    const index = await createIndex(ctx.app, account, { name: `race-${round}` });
    const filled = await callIndex(ctx.app, index.endpoint, 'upsert-data/ns', index.token, makeDocs(20));
    expect(filled.statusCode).toBe(200);
    // Every other round the index starts closed, so stats read its files while the delete removes them.
    if (round % 2 === 1)
      expect((await callIndex(ctx.app, evictor.endpoint, 'info', evictor.token)).statusCode).toBe(200);

    const dataPlane = (route: string, body?: unknown) => async () => {
      const response = await callIndex(ctx.app, index.endpoint, route, index.token, body);
      return { what: `POST ${route.split('/')[0]}`, response, gone: [401, 404] };
    };
    const management = (method: 'GET' | 'DELETE', url: string) => async () => {
      const response = await injectAs(ctx.app, method, url, account.auth);
      return { what: `${method} ${url.replace(index.id, '{id}')}`, response, gone: [404] };
    };
    // The delete goes out in the middle of the others, each kind several times around it.
    const before = [
      dataPlane('search/ns', { query: 'document', topK: 5, filter: '@metadata.position >= 3' }),
      dataPlane('upsert-data/ns', makeDocs(5, `more-${round}-`)),
      management('GET', `/v2/search/${index.id}/stats`),
      management('GET', '/v2/search/stats'),
      dataPlane('info'),
      dataPlane('fetch/ns', { ids: ['doc-1', 'doc-2'], includeData: true }),
      dataPlane('range/ns', { cursor: '', limit: 10 }),
    ];
    const after = [
      dataPlane('search/ns', { query: 'topic', topK: 3, semanticWeight: 0.5 }),
      dataPlane('upsert-data/other', makeDocs(3)),
      management('GET', `/v2/search/${index.id}/stats`),
      management('GET', '/v2/search/stats'),
      management('GET', `/v2/search/${index.id}`),
      dataPlane('list-namespaces'),
      dataPlane('delete/ns', { ids: ['doc-3'] }),
      dataPlane('reset/ns'),
      dataPlane('info'),
    ];
    const calls = [...before, management('DELETE', `/v2/search/${index.id}`), ...after];
    const results = await Promise.all(calls.map((call) => call()));
    for (const { what, response, gone } of results) {
      const status = response.statusCode;
      const label = `${what} → ${status} ${response.body.slice(0, 200)}`;
      expect(status === 200 || gone.includes(status), label).toBe(true);
      if (status !== 200) expect(json(response).code, label).toMatch(/^(index_not_found|unauthorized)$/);
      const key = `${what} ${status}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    // Whatever raced, the index is gone afterwards, with its data.
    expect((await injectAs(ctx.app, 'GET', `/v2/search/${index.id}`, account.auth)).statusCode).toBe(404);
    expect((await callIndex(ctx.app, index.endpoint, 'info', index.token)).statusCode).toBe(401);
  }
  if (process.env.RACE_VERBOSE) console.log([...seen].sort());
  // The race was real: requests both before and after the delete took effect.
  expect(seen.get('DELETE /v2/search/{id} 200')).toBe(ROUNDS);
  expect([...seen.keys()].some((key) => key.endsWith(' 401') || key.endsWith(' 404'))).toBe(true);
  const accountStats = await injectAs(ctx.app, 'GET', '/v2/search/stats', account.auth);
  expect(json(accountStats).record_count).toBe(0); // the evictor is empty
}, 300_000);
