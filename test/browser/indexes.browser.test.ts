import { expect, test } from 'vitest';
import { injectAs, json } from '../helpers/app.js';
import { callIndex, makeDocs } from '../helpers/data-plane.js';
import { createIndex } from '../helpers/factories.js';
import { fieldError, focusInfo, screenshots, signIn, useConsole } from './support/console-browser.js';

const h = useConsole();

const listIndexes = async () => json<any[]>(await injectAs(h.ctx.app, 'GET', '/v2/search', h.account.auth));

test('the index list shows name, region, plan, documents and requests today', async () => {
  const alpha = await createIndex(h.ctx.app, h.account, { name: 'alpha', region: 'eu-west-1', type: 'payg' });
  await createIndex(h.ctx.app, h.account, { name: 'beta', region: 'us-central1', type: 'free' });
  // Three documents (one update), then two searches: three requests today.
  expect((await callIndex(h.ctx.app, alpha.endpoint, 'upsert-data', alpha.token, makeDocs(3))).statusCode).toBe(200);
  for (let i = 0; i < 2; i++) {
    const search = await callIndex(h.ctx.app, alpha.endpoint, 'search', alpha.token, { query: 'document', topK: 2 });
    expect(search.statusCode).toBe(200);
  }

  const page = await h.newPage();
  await signIn(page, h.account);
  const alphaRow = page.locator('tr', { has: page.getByRole('link', { name: 'alpha', exact: true }) });
  await alphaRow.waitFor();
  const cells = await alphaRow.locator('td').allTextContents();
  expect(cells).toEqual(['alpha', 'eu-west-1', 'payg', '3', '3']);
  const betaCells = await page
    .locator('tr', { has: page.getByRole('link', { name: 'beta', exact: true }) })
    .locator('td')
    .allTextContents();
  expect(betaCells).toEqual(['beta', 'us-central1', 'free', '0', '0']);
  await screenshots(page, 'index-list');

  await page.getByRole('link', { name: 'alpha', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'alpha' }).waitFor();
  expect(new URL(page.url()).hash).toBe(`#/indexes/${alpha.id}`);
  expect(h.pageProblems).toEqual([]);
});

test("the create form shows the API's errors on their fields, then creates the index", async () => {
  const page = await h.newPage();
  await signIn(page, h.account);
  const name = page.getByLabel('Name', { exact: true });
  const create = page.getByRole('button', { name: 'Create index' });
  const before = (await listIndexes()).length;

  // 400 invalid_request with details[{field: "name"}].
  await name.fill('not a valid name!');
  await create.click();
  const nameError = await fieldError(page, 'Name');
  await expect.poll(() => nameError.textContent()).toMatch(/^Name must match/);
  expect(await name.getAttribute('aria-invalid')).toBe('true');
  // The field with the error gets the focus, so a keyboard user lands on it.
  expect((await focusInfo(page)).id).toBe(await name.getAttribute('id'));

  // 409 index_name_taken, also on the name.
  await page.getByLabel('Plan', { exact: true }).selectOption('payg');
  await name.fill('alpha');
  await create.click();
  await expect.poll(() => nameError.textContent()).toMatch(/already have an index named "alpha"/);

  // 400 plan_unavailable on the plan field.
  await name.fill('gamma');
  await page.getByLabel('Plan', { exact: true }).selectOption('fixed');
  await create.click();
  const planError = await fieldError(page, 'Plan');
  await expect.poll(() => planError.textContent()).toMatch(/"fixed" plan is not available/);
  expect(await nameError.isHidden()).toBe(true);

  // 409 free_index_limit: "beta" is this account's one free index.
  await page.getByLabel('Plan', { exact: true }).selectOption('free');
  await create.click();
  await expect.poll(() => planError.textContent()).toMatch(/at most 1 free index/);
  expect((await listIndexes()).length).toBe(before);

  // A valid one: the page lists it and the API has it.
  await page.getByLabel('Plan', { exact: true }).selectOption('payg');
  await page.getByLabel('Region', { exact: true }).selectOption('eu-west-1');
  await create.click();
  await page.getByRole('status').filter({ hasText: 'Created gamma' }).waitFor();
  expect(await planError.isHidden()).toBe(true);
  await page.getByRole('link', { name: 'gamma', exact: true }).first().waitFor();
  const created = (await listIndexes()).find((index) => index.name === 'gamma');
  expect(created).toMatchObject({ name: 'gamma', region: 'eu-west-1', type: 'payg' });
  const row = page.locator(`tr[data-index-id="${created.id}"]`);
  // The list is fetched again after the create; poll until its row is there.
  await expect.poll(() => row.locator('td').allTextContents()).toEqual(['gamma', 'eu-west-1', 'payg', '0', '0']);
  expect(h.pageProblems).toEqual([]);
});

test('a link with broken percent-encoding leads to the index list, not an error page', async () => {
  const page = await h.newPage();
  await signIn(page, h.account);
  await page.goto('/console#/messaging');
  await page.getByRole('heading', { level: 1, name: 'Messaging instances' }).waitFor();
  await page.goto('/console#/indexes/%E0%A4%A');
  await page.getByRole('heading', { level: 1, name: 'Search indexes' }).waitFor();
  expect(new URL(page.url()).hash).toBe('#/indexes');
  expect(await page.getByText('Something went wrong').count()).toBe(0);
  expect(h.pageProblems).toEqual([]);
});
