import { expect, test } from 'vitest';
import { injectAs, json } from '../helpers/app.js';
import { callIndex } from '../helpers/data-plane.js';
import { createIndex } from '../helpers/factories.js';
import { fieldError, focusInfo, screenshots, signIn, useConsole } from './support/console-browser.js';

const h = useConsole();

const getIndex = (id: string) => injectAs(h.ctx.app, 'GET', `/v2/search/${id}`, h.account.auth);

async function openIndex(id: string, name: string) {
  const page = await h.newPage();
  await signIn(page, h.account);
  await page.goto(`/console#/indexes/${id}`);
  await page.getByRole('heading', { level: 1, name }).waitFor();
  return page;
}

test('rename asks first, shows a taken name on the field, and renames', async () => {
  const index = await createIndex(h.ctx.app, h.account, { name: 'draft' });
  await createIndex(h.ctx.app, h.account, { name: 'taken' });
  const page = await openIndex(index.id, 'draft');
  const newName = page.getByLabel('New name');

  await newName.fill('final');
  await page.getByRole('button', { name: 'Rename', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Rename index' });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
  expect(json(await getIndex(index.id)).name).toBe('draft');

  await newName.fill('taken');
  await page.getByRole('button', { name: 'Rename', exact: true }).click();
  await dialog.getByRole('button', { name: 'Rename' }).click();
  const error = await fieldError(page, 'New name');
  await expect.poll(() => error.textContent()).toMatch(/already have an index named "taken"/);
  expect(json(await getIndex(index.id)).name).toBe('draft');

  await newName.fill('final');
  await page.getByRole('button', { name: 'Rename', exact: true }).click();
  await dialog.getByRole('button', { name: 'Rename' }).click();
  await page.getByRole('heading', { level: 1, name: 'final' }).waitFor();
  expect(json(await getIndex(index.id)).name).toBe('final');
  expect(h.pageProblems).toEqual([]);
});

test('reset tokens asks first, then the old tokens stop working and the page shows the new ones', async () => {
  const index = await createIndex(h.ctx.app, h.account, { name: 'rotating' });
  const page = await openIndex(index.id, 'rotating');

  await page.getByRole('button', { name: 'Reset tokens' }).click();
  const dialog = page.getByRole('dialog', { name: 'Reset tokens' });
  await dialog.waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  expect(json(await getIndex(index.id)).token).toBe(index.token);

  await page.getByRole('button', { name: 'Reset tokens' }).click();
  await dialog.getByRole('button', { name: 'Reset tokens' }).click();
  await page.getByRole('status').filter({ hasText: 'New tokens issued' }).waitFor();
  const record = json(await getIndex(index.id));
  expect(record.token).not.toBe(index.token);
  expect(record.read_only_token).not.toBe(index.read_only_token);
  expect((await callIndex(h.ctx.app, index.endpoint, 'info', index.token)).statusCode).toBe(401);
  expect((await callIndex(h.ctx.app, index.endpoint, 'info', record.token)).statusCode).toBe(200);

  await page.getByRole('button', { name: 'Reveal token (read-write)' }).click();
  await page.getByText(record.token, { exact: true }).waitFor();
  expect(h.pageProblems).toEqual([]);
});

test('delete asks for the index name, then the index is gone from the API and the list', async () => {
  const index = await createIndex(h.ctx.app, h.account, { name: 'doomed' });
  const page = await openIndex(index.id, 'doomed');

  await page.getByRole('button', { name: 'Delete index' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete index' });
  const typed = dialog.getByLabel('Type doomed to confirm');
  const confirm = dialog.getByRole('button', { name: 'Delete index' });
  // The focus starts in the name field and Tab cycles inside the dialog.
  expect((await focusInfo(page)).id).toBe(await typed.getAttribute('id'));
  expect(await confirm.isDisabled()).toBe(true);
  await typed.fill('doome');
  expect(await confirm.isDisabled()).toBe(true);
  for (let i = 0; i < 4; i++) {
    await page.keyboard.press('Shift+Tab');
    expect((await focusInfo(page)).inDialog).toBe(true);
  }
  await typed.fill('doomed');
  await screenshots(page, 'delete-dialog');
  await confirm.click();

  await page.getByRole('heading', { level: 1, name: 'Search indexes' }).waitFor();
  expect((await getIndex(index.id)).statusCode).toBe(404);
  const names = json<any[]>(await injectAs(h.ctx.app, 'GET', '/v2/search', h.account.auth)).map((i) => i.name);
  expect(names).not.toContain('doomed');
  await page.locator('.index-table').waitFor();
  expect(await page.getByRole('link', { name: 'doomed', exact: true }).count()).toBe(0);
  expect(h.pageProblems).toEqual([]);
});

test('leaving the page while Reset tokens or Rename is on its way ends quietly, with no uncaught error', async () => {
  const index = await createIndex(h.ctx.app, h.account, { name: 'racing' });
  const page = await openIndex(index.id, 'racing');
  // Each request waits at the network until the page has been left.
  const hold = async (pattern: string) => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(pattern, async (route) => {
      await held;
      await route.continue();
    });
    return release;
  };

  const releaseReset = await hold('**/reset-password');
  await page.getByRole('button', { name: 'Reset tokens' }).click();
  await page.getByRole('dialog', { name: 'Reset tokens' }).getByRole('button', { name: 'Reset tokens' }).click();
  await page.locator('#nav').getByRole('link', { name: 'Messaging' }).click();
  await page.getByRole('heading', { level: 1, name: 'Messaging instances' }).waitFor();
  releaseReset();
  // The reset itself went through; only the refresh of the page that was left is dropped.
  await page.getByRole('status').filter({ hasText: 'New tokens issued' }).waitFor();
  await expect.poll(async () => json(await getIndex(index.id)).token).not.toBe(index.token);

  await page.goto(`/console#/indexes/${index.id}`);
  await page.getByRole('heading', { level: 1, name: 'racing' }).waitFor();
  const releaseRename = await hold('**/rename');
  await page.getByLabel('New name').fill('raced');
  await page.getByRole('button', { name: 'Rename', exact: true }).click();
  await page.getByRole('dialog', { name: 'Rename index' }).getByRole('button', { name: 'Rename' }).click();
  await page.locator('#nav').getByRole('link', { name: 'Indexes' }).click();
  await page.getByRole('heading', { level: 1, name: 'Search indexes' }).waitFor();
  releaseRename();
  await page.getByRole('status').filter({ hasText: 'Renamed to raced' }).waitFor();
  expect(json(await getIndex(index.id)).name).toBe('raced');
  // A round trip through the page's event loop, so an error thrown after the toast has surfaced.
  await page.evaluate('new Promise((resolve) => setTimeout(resolve, 50))');
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Search indexes');
  expect(h.pageProblems).toEqual([]);
});
