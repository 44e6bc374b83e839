import type { Page } from 'playwright-core';
import { expect, test } from 'vitest';
import { createAccount, createIndex, type TestAccount } from '../helpers/factories.js';
import {
  focusInfo,
  localStorageLength,
  screenshots,
  sessionStorageOf,
  signIn,
  useConsole,
} from './support/console-browser.js';

const h = useConsole();

test('/ leads to the sign-in form; a wrong key shows the API error and stores nothing', async () => {
  const page = await h.newPage();
  await page.goto('/');
  expect(new URL(page.url()).pathname).toBe('/console');
  await page.getByRole('heading', { name: 'Sign in to searchplane' }).waitFor();
  await screenshots(page, 'sign-in');

  await page.getByLabel('E-mail').fill(h.account.email);
  await page.getByLabel('API key').fill('not-the-right-key');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  // The management API's own message for a bad key, not a raw body.
  const problem = await alert.textContent();
  expect(problem).toMatch(/invalid/i);
  expect(problem).not.toContain('{');
  expect(await sessionStorageOf(page)).toEqual({});
  expect(h.pageProblems).toEqual([]);
});

test('the right key signs in, lives in session storage only, and sign out clears it', async () => {
  const page = await h.newPage();
  await signIn(page, h.account);
  await expect.poll(() => page.getByText(h.account.email).isVisible()).toBe(true);

  const stored = Object.values(await sessionStorageOf(page)).join(' ');
  expect(stored).toContain(h.account.apiKey);
  expect(page.url()).not.toContain(h.account.apiKey);
  expect(page.url()).not.toContain(encodeURIComponent(h.account.email));
  expect(await page.context().cookies()).toEqual([]);
  expect(await localStorageLength(page)).toBe(0);

  // A reload keeps the session (same tab).
  await page.reload();
  await page.getByRole('heading', { level: 1, name: 'Search indexes' }).waitFor();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to searchplane' }).waitFor();
  expect(await sessionStorageOf(page)).toEqual({});
  await page.reload();
  await page.getByRole('heading', { name: 'Sign in to searchplane' }).waitFor();
  expect(h.pageProblems).toEqual([]);
});

test('signing in works from the keyboard alone, and the focused control shows a focus ring', async () => {
  const page = await h.newPage();
  await page.goto('/console');
  await page.getByRole('heading', { name: 'Sign in to searchplane' }).waitFor();
  // The e-mail field has the focus from the start.
  await page.keyboard.type(h.account.email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(h.account.apiKey);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { level: 1, name: 'Search indexes' }).waitFor();
  // The page heading takes the focus after the view changes; Tab goes on to the page's controls.
  expect((await focusInfo(page)).tag).toBe('H1');
  await page.keyboard.press('Tab');
  const focused = await focusInfo(page);
  expect(focused.tag).toBe('INPUT');
  const ring = await page.evaluate('getComputedStyle(document.activeElement).boxShadow');
  expect(ring).not.toBe('none');
  expect(h.pageProblems).toEqual([]);
});

test("a 401 from any of the page's actions, not only a page load, signs out and forgets the key", async () => {
  const account = await createAccount(h.ctx.app);
  const index = await createIndex(h.ctx.app, account, { name: 'rotated' });
  const rotate = async () => {
    const { api_key } = await h.ctx.app.services.accounts.rotateKey(account.email);
    return { ...account, apiKey: api_key };
  };
  const openIndex = async (page: Page, current: TestAccount) => {
    await signIn(page, current);
    await page.goto(`/console#/indexes/${index.id}`);
    await page.getByRole('heading', { level: 1, name: 'rotated' }).waitFor();
  };
  const expectSignedOut = async (page: Page, oldKey: string) => {
    await page.getByRole('heading', { name: 'Sign in to searchplane' }).waitFor();
    await page.getByText(/^Signed out: the API key was refused .*It may have been rotated/).waitFor();
    expect(await sessionStorageOf(page)).toEqual({});
    expect(await page.locator('#account').isHidden()).toBe(true);
    expect(JSON.stringify(await sessionStorageOf(page))).not.toContain(oldKey);
  };

  // The throughput period: a read.
  const page = await h.newPage();
  await openIndex(page, account);
  let current = await rotate();
  await page.getByLabel('Period').selectOption('1d');
  await expectSignedOut(page, account.apiKey);

  // Rename: a write, whose errors otherwise go under its field.
  await openIndex(page, current);
  const previousKey = current.apiKey;
  current = await rotate();
  await page.getByLabel('New name').fill('renamed');
  await page.getByRole('button', { name: 'Rename', exact: true }).click();
  await page.getByRole('dialog', { name: 'Rename index' }).getByRole('button', { name: 'Rename' }).click();
  await expectSignedOut(page, previousKey);

  // The new key works.
  await openIndex(page, current);
  expect(h.pageProblems).toEqual([]);
});
