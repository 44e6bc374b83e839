import { beforeAll, expect, test } from 'vitest';
import { json } from '../helpers/app.js';
import { callIndex, setQuotas } from '../helpers/data-plane.js';
import { createIndex } from '../helpers/factories.js';
import { fieldError, screenshots, signIn, useConsole } from './support/console-browser.js';

const h = useConsole();
let index: any;
beforeAll(async () => {
  index = await createIndex(h.ctx.app, h.account, { name: 'films', type: 'payg' });
  const movies = [
    { id: 'm1', content: { title: 'Star Wars', genre: 'sci-fi' }, metadata: { year: 1977 } },
    { id: 'm2', content: { title: 'Amélie', genre: 'romance' }, metadata: { year: 2001 } },
    { id: 'm3', content: { title: 'Star Trek', genre: 'sci-fi' }, metadata: { year: 1979 } },
  ];
  expect((await callIndex(h.ctx.app, index.endpoint, 'upsert-data/movies', index.token, movies)).statusCode).toBe(200);
  const other = [{ id: 'd1', content: { title: 'Default namespace doc' } }];
  expect((await callIndex(h.ctx.app, index.endpoint, 'upsert-data', index.token, other)).statusCode).toBe(200);
});

test('the playground searches a namespace with topK, semantic weight and reranking, and shows the hits', async () => {
  const page = await h.newPage();
  await signIn(page, h.account);
  await page.goto(`/console#/indexes/${index.id}/search`);
  const namespace = page.getByLabel('Namespace');
  await namespace.waitFor();
  await expect.poll(() => namespace.locator('option').allTextContents()).toEqual(['(default)', 'movies']);
  await namespace.selectOption('movies');
  await page.getByLabel('Query').fill('star');
  await page.getByLabel('Results (topK)').fill('2');
  // The slider by keyboard: Home is 0 (full text only).
  await page.getByRole('slider', { name: /Semantic weight/ }).focus();
  await page.keyboard.press('Home');
  expect(await page.locator('output').textContent()).toBe('0.00');
  await page.getByLabel('Rerank the results').check();

  const sent = page.waitForRequest((request) => request.url().endsWith(`/indexes/${index.endpoint}/search/movies`));
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const request = await sent;
  expect(request.headers().authorization).toBe(`Bearer ${index.token}`);
  expect(request.postDataJSON()).toMatchObject({ query: 'star', topK: 2, semanticWeight: 0, reranking: true });

  await page.getByRole('heading', { name: '2 results' }).waitFor();
  const hits = page.locator('.hits > li');
  expect(await hits.count()).toBe(2);
  const ids = await hits.locator('.hit-id').allTextContents();
  expect(new Set(ids)).toEqual(new Set(['m1', 'm3']));
  const first = hits.first();
  expect(await first.innerText()).toMatch(/score 0\.\d{3}/);
  expect(await first.locator('.kv.content').innerText()).toMatch(/title\s+Star (Wars|Trek)\s+genre\s+sci-fi/);
  expect(await first.locator('.kv.metadata').innerText()).toMatch(/year\s+19(77|79)/);
  await screenshots(page, 'search');
  expect(h.pageProblems).toEqual([]);
});

test('a filter syntax error is shown under the filter with the position marked', async () => {
  const filter = "genre = 'sci-fi' AND AND year > 1";
  const api = await callIndex(h.ctx.app, index.endpoint, 'search/movies', index.token, { query: 'star', filter });
  expect(api.statusCode).toBe(400);
  const message: string = json(api).error;
  const position = Number(/at position (\d+)/.exec(message)?.[1]);
  expect(position).toBe(21);

  const page = await h.newPage();
  await signIn(page, h.account);
  await page.goto(`/console#/indexes/${index.id}/search`);
  await page.getByLabel('Namespace').selectOption('movies');
  await page.getByLabel('Query').fill('star');
  await page.getByLabel('Filter').fill(filter);
  await page.getByRole('button', { name: 'Search', exact: true }).click();

  const error = await fieldError(page, 'Filter');
  await error.waitFor();
  expect(await error.locator('p').textContent()).toBe(message);
  expect(await error.locator('mark').textContent()).toBe(filter[position]);
  expect(await error.locator('code').textContent()).toBe(filter);
  expect(await error.locator('.caret-line').textContent()).toBe(`${' '.repeat(position)}^`);
  expect(await page.getByLabel('Filter').getAttribute('aria-invalid')).toBe('true');
  expect(await page.locator('.hits').count()).toBe(0);
  await screenshots(page, 'search-filter-error');

  // A valid filter clears the error and narrows the hits.
  await page.getByLabel('Filter').fill('@metadata.year < 1978');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.getByRole('heading', { name: '1 result' }).waitFor();
  expect(await error.isHidden()).toBe(true);
  expect(await page.locator('.hits .hit-id').allTextContents()).toEqual(['m1']);
  expect(h.pageProblems).toEqual([]);
});

/** An index holding one document, with these limits, open in the playground with a query typed. */
async function openSearch(quotas: { max_reads_per_request: number }) {
  const target = await createIndex(h.ctx.app, h.account, { type: 'payg' });
  await setQuotas(h.ctx.store, target.id, quotas);
  const doc = [{ id: 'only', content: { title: 'The only film' } }];
  expect((await callIndex(h.ctx.app, target.endpoint, 'upsert-data', target.token, doc)).statusCode).toBe(200);
  const page = await h.newPage();
  await signIn(page, h.account);
  await page.goto(`/console#/indexes/${target.id}/search`);
  await page.getByLabel('Query').fill('film');
  return { page, endpoint: target.endpoint as string };
}

test("topK starts within the index's reads per request, and 0 is refused on the field, not replaced", async () => {
  const { page, endpoint } = await openSearch({ max_reads_per_request: 3 });
  const topK = page.getByLabel('Results (topK)');
  expect(await topK.inputValue()).toBe('3');
  const sent = page.waitForRequest((request) => request.url().endsWith(`/indexes/${endpoint}/search`));
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  expect((await sent).postDataJSON()).toMatchObject({ topK: 3 });
  await page.getByRole('heading', { name: '1 result' }).waitFor();

  const searches: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/search')) searches.push(request.url());
  });
  for (const value of ['0', '4', '1.5', '']) {
    await topK.fill(value);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const error = await fieldError(page, 'Results (topK)');
    await expect.poll(() => error.textContent()).toBe('Enter a whole number of results from 1 to 3.');
    expect(await topK.getAttribute('aria-invalid')).toBe('true');
  }
  expect(searches).toEqual([]);
  expect(h.pageProblems).toEqual([]);
});

test("reads per request of -1 (unlimited) leave topK up to the API's own ceiling of 1000", async () => {
  const { page, endpoint } = await openSearch({ max_reads_per_request: -1 });
  const topK = page.getByLabel('Results (topK)');
  expect(await topK.inputValue()).toBe('10');
  // The arrow steps past 10: the field's ceiling is not the -1 taken as 1.
  await topK.focus();
  await page.keyboard.press('ArrowUp');
  expect(await topK.inputValue()).toBe('11');
  await topK.fill('1001');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const error = await fieldError(page, 'Results (topK)');
  await expect.poll(() => error.textContent()).toBe('Enter a whole number of results from 1 to 1000.');
  await topK.fill('1000');
  const sent = page.waitForRequest((request) => request.url().endsWith(`/indexes/${endpoint}/search`));
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  expect((await sent).postDataJSON()).toMatchObject({ topK: 1000 });
  await page.getByRole('heading', { name: '1 result' }).waitFor();
  expect(h.pageProblems).toEqual([]);
});
