import { expect, test } from 'vitest';
import { basic, injectAs, json } from '../helpers/app.js';
import { createIndex } from '../helpers/factories.js';
import { screenshots, signIn, useConsole } from './support/console-browser.js';

const h = useConsole();

test('the Keys page creates a limited key, shows its secret once, and deletes it', async () => {
  const index = await createIndex(h.ctx.app, h.account, { name: 'catalog' });
  await createIndex(h.ctx.app, h.account, { name: 'private' });
  const page = await h.newPage();
  await signIn(page, h.account);
  await page.getByRole('link', { name: 'Keys' }).click();
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
  await page.getByText('No API keys yet').waitFor();

  await page.getByLabel('Name').fill('reader');
  await page.getByLabel('indexes.read', { exact: true }).check();
  await page.getByLabel('catalog', { exact: true }).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = await page.locator('code.new-key').textContent();
  expect(secret).toMatch(/^sp_/);
  const row = page.locator('tbody tr', { hasText: 'reader' });
  await row.waitFor();
  expect(await row.innerText()).toMatch(/reader[\s\S]*indexes\.read[\s\S]*catalog[\s\S]*Never/);
  await screenshots(page, 'keys');

  // The key works with the account e-mail, for its index only.
  const auth = basic(h.account.email, String(secret));
  const listed = json(await injectAs(h.ctx.app, 'GET', '/v2/search', auth));
  expect(listed.map((record: { id: string }) => record.id)).toEqual([index.id]);
  // A reload shows the list, never the secret.
  await page.reload();
  await row.waitFor();
  expect(await page.content()).not.toContain(String(secret));

  await row.getByRole('button', { name: 'Delete key reader' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete the key reader?' });
  await dialog.getByRole('button', { name: 'Delete key' }).click();
  await row.waitFor({ state: 'detached' });
  expect((await injectAs(h.ctx.app, 'GET', '/v2/search', auth)).statusCode).toBe(401);
  expect(h.pageProblems).toEqual([]);
});

test("the Keys page shows the API's error next to the actions when none is chosen", async () => {
  const page = await h.newPage();
  await signIn(page, h.account);
  await page.goto('/console#/keys');
  await page.getByLabel('Name').fill('nothing');
  await page.getByRole('button', { name: 'Create key' }).click();
  // The error sits in the Actions fieldset (its wording is the API's).
  const error = page.getByRole('group', { name: 'Actions' }).locator('.field-error');
  await error.waitFor();
  expect(await error.textContent()).toMatch(/^Actions /);
  const keys = json(await injectAs(h.ctx.app, 'GET', '/v2/keys', h.account.auth));
  expect(keys.map((key: { name: string }) => key.name)).not.toContain('nothing');
  expect(h.pageProblems).toEqual([]);
});

test('the Activity page lists changes newest first and pages to older ones', async () => {
  for (let i = 0; i < 55; i++) await createIndex(h.ctx.app, h.account, { name: `bulk-${i}` });
  const page = await h.newPage();
  await signIn(page, h.account);
  await page.getByRole('link', { name: 'Activity' }).click();
  await page.getByRole('heading', { level: 1, name: 'Activity' }).waitFor();
  await page.locator('tbody tr').first().waitFor();
  expect(await page.locator('tbody tr').count()).toBe(50);
  expect(await page.locator('tbody tr').first().innerText()).toMatch(/index\.create[\s\S]*account[\s\S]*bulk-54/);
  await screenshots(page, 'activity');
  await page.getByRole('button', { name: 'Show older' }).click();
  await page.waitForFunction('document.querySelectorAll("tbody tr").length > 50');
  const total = json(await injectAs(h.ctx.app, 'GET', '/v2/auditlogs?limit=1000', h.account.auth)).data.length;
  expect(await page.locator('tbody tr').count()).toBe(total);
  expect(await page.getByRole('button', { name: 'Show older' }).count()).toBe(0);
  expect(h.pageProblems).toEqual([]);
});

test('an API key without indexes.read signs in, and its pages say what it lacks', async () => {
  const created = json(
    await injectAs(h.ctx.app, 'POST', '/v2/keys', h.account.auth, { name: 'auditor', actions: ['auditlogs.read'] }),
  );
  const page = await h.newPage();
  await page.goto('/console');
  await page.getByLabel('E-mail').fill(h.account.email);
  await page.getByLabel('API key').fill(created.key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'indexes.read' }).waitFor();
  await page.getByRole('link', { name: 'Activity' }).click();
  await page.getByRole('heading', { level: 1, name: 'Activity' }).waitFor();
  await page.locator('tbody tr').first().waitFor();
  expect(h.pageProblems).toEqual([]);
});
