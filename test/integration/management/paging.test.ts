import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApiKey } from '../../helpers/api-keys.js';
import { createTestApp, injectAs, json, type TestContext } from '../../helpers/app.js';
import { createAccount, createIndex, type TestAccount } from '../../helpers/factories.js';

let ctx: TestContext;
let account: TestAccount;
const indexIds: string[] = [];

beforeAll(async () => {
  ctx = await createTestApp();
  account = await createAccount(ctx.app);
  for (let i = 0; i < 5; i++) indexIds.push((await createIndex(ctx.app, account)).id);
  for (let i = 0; i < 4; i++) await createApiKey(ctx.app, account, { actions: ['indexes.read'] });
});
afterAll(async () => ctx.close());

/** Every page of a list, following next_cursor from the first page of `limit`. */
async function allPages(path: string, limit: number, auth = account.auth) {
  const pages: { data: { id: string }[]; next_cursor: string | null }[] = [];
  let url = `${path}?limit=${limit}`;
  for (;;) {
    const response = await injectAs(ctx.app, 'GET', url, auth);
    expect(response.statusCode).toBe(200);
    const page = json(response);
    pages.push(page);
    if (page.next_cursor === null) return pages;
    url = `${path}?limit=${limit}&cursor=${encodeURIComponent(page.next_cursor)}`;
  }
}

describe.each(['/v2/search', '/v2/keys'])('GET %s', (path) => {
  test('without limit or cursor: the whole list as an array, as before', async () => {
    const whole = json(await injectAs(ctx.app, 'GET', path, account.auth));
    expect(Array.isArray(whole)).toBe(true);
    expect(whole.length).toBeGreaterThanOrEqual(4);
  });

  test('pages of `limit` follow each other through next_cursor to the whole list, in its order', async () => {
    const whole = json(await injectAs(ctx.app, 'GET', path, account.auth));
    const pages = await allPages(path, 2);
    expect(pages.slice(0, -1).every((page) => page.data.length === 2)).toBe(true);
    expect(pages.at(-1)?.next_cursor).toBeNull();
    expect(pages.flatMap((page) => page.data)).toEqual(whole);
  });

  test('a limit as large as the list is one page without a next cursor', async () => {
    const page = json(await injectAs(ctx.app, 'GET', `${path}?limit=1000`, account.auth));
    expect(page.next_cursor).toBeNull();
    expect(page.data).toEqual(json(await injectAs(ctx.app, 'GET', path, account.auth)));
  });

  test.each(['limit=0', 'limit=1001', 'limit=abc', 'limit=-1', 'cursor=nope', 'cursor=WzEsMl0', 'limit=1&limit=2'])(
    '?%s is 400 invalid_request',
    async (query) => {
      const response = await injectAs(ctx.app, 'GET', `${path}?${query}`, account.auth);
      expect(response.statusCode).toBe(400);
      expect(json(response).code).toBe('invalid_request');
    },
  );
});

test('a key limited to some indexes pages through those only', async () => {
  const limited = await createApiKey(ctx.app, account, { actions: ['indexes.read'], indexes: indexIds.slice(1, 4) });
  const pages = await allPages('/v2/search', 2, limited.auth);
  expect(pages.flatMap((page) => page.data.map((index) => index.id))).toEqual(indexIds.slice(1, 4));
});
