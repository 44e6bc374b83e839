import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { createListeningApp, type ListeningContext } from '../../helpers/data-plane.js';
import { createAccount, type TestAccount } from '../../helpers/factories.js';

/** Debian's chromium (`apt-get install chromium`); playwright-core downloads no browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, '../../../test-artifacts/screenshots');
export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

/** A listening app, an account on it and a browser; `close()` ends all three. */
export interface ConsoleHarness {
  ctx: ListeningContext;
  account: TestAccount;
  browser: Browser;
  /** A fresh browser context (its own session storage) with one page on the console's origin. */
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  /** Problems the pages reported: uncaught exceptions and Content-Security-Policy violations. */
  pageProblems: string[];
  close(): Promise<void>;
}

export async function startConsole(options: { env?: Record<string, string> } = {}): Promise<ConsoleHarness> {
  const ctx = await createListeningApp(options);
  const account = await createAccount(ctx.app);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const contexts: BrowserContext[] = [];
  const pageProblems: string[] = [];
  return {
    ctx,
    account,
    browser,
    pageProblems,
    async newPage(viewport = DESKTOP) {
      const context = await browser.newContext({ baseURL: ctx.baseUrl, viewport });
      contexts.push(context);
      const page = await context.newPage();
      page.on('pageerror', (error) => pageProblems.push(`uncaught: ${error.message}`));
      page.on('console', (message) => {
        if (/Content.Security.Policy/i.test(message.text())) pageProblems.push(`csp: ${message.text()}`);
      });
      return page;
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close();
      await ctx.close();
    },
  };
}

/**
 * The harness of a test file: started before its tests, closed after them. The returned object
 * stands for the harness once started (reading it before `beforeAll` has run throws).
 */
export function useConsole(options: { env?: Record<string, string> } = {}): ConsoleHarness {
  let harness: ConsoleHarness | undefined;
  beforeAll(async () => {
    harness = await startConsole(options);
  });
  afterAll(async () => {
    await harness?.close();
  });
  return new Proxy({} as ConsoleHarness, {
    get(_target, key) {
      if (!harness) throw new Error('The console harness is used before beforeAll started it');
      return Reflect.get(harness, key);
    },
  });
}

/** Signs in through the form and waits for the index list. */
export async function signIn(page: Page, account: TestAccount): Promise<void> {
  await page.goto('/console');
  await page.getByLabel('E-mail').fill(account.email);
  await page.getByLabel('API key').fill(account.apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Search indexes' }).waitFor();
}

/** Full-page screenshots at 1280 px and 390 px wide, into test-artifacts/screenshots/. */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const original = page.viewportSize() ?? DESKTOP;
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${viewport.width}.png`), fullPage: true });
  }
  await page.setViewportSize(original);
}

/** The page's session storage (evaluated in the page; this tsconfig has no DOM types). */
export function sessionStorageOf(page: Page): Promise<Record<string, string>> {
  return page.evaluate('Object.fromEntries(Object.entries(sessionStorage))') as Promise<Record<string, string>>;
}

export function localStorageLength(page: Page): Promise<number> {
  return page.evaluate('localStorage.length') as Promise<number>;
}

/** The error element under a labelled field (the id in its aria-describedby ending in "-error"). */
export async function fieldError(page: Page, label: string) {
  const describedBy = (await page.getByLabel(label, { exact: true }).getAttribute('aria-describedby')) ?? '';
  const errorId = describedBy.split(' ').find((id) => id.endsWith('-error'));
  if (!errorId) throw new Error(`Field "${label}" has no error element`);
  return page.locator(`[id="${errorId}"]`);
}

/** The id of the element that has focus in the page, and whether it is inside a dialog. */
export function focusInfo(page: Page): Promise<{ id: string; tag: string; inDialog: boolean }> {
  return page.evaluate(
    '({ id: document.activeElement?.id ?? "", tag: document.activeElement?.tagName ?? "", inDialog: !!document.activeElement?.closest("dialog") })',
  ) as Promise<{ id: string; tag: string; inDialog: boolean }>;
}
