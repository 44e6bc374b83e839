import type { Page } from 'playwright-core';
import { beforeAll, expect, test } from 'vitest';
import { json } from '../helpers/app.js';
import { callIndex, setQuotas } from '../helpers/data-plane.js';
import { createIndex } from '../helpers/factories.js';
import { sessionStorageOf, signIn, useConsole } from './support/console-browser.js';

const h = useConsole();
let index: any;
beforeAll(async () => {
  index = await createIndex(h.ctx.app, h.account, { name: 'uploads', type: 'payg' });
});

const fetchIds = async (namespace: string, ids: string[]) =>
  json(await callIndex(h.ctx.app, index.endpoint, `fetch/${encodeURIComponent(namespace)}`, index.token, { ids }))
    .result as unknown[];

async function openDocuments() {
  const page = await h.newPage();
  await signIn(page, h.account);
  await page.goto(`/console#/indexes/${index.id}/documents`);
  await page.getByRole('heading', { name: 'Upload documents' }).waitFor();
  return page;
}

/** Chooses a file with this text and counts the upsert requests the page sends from then on. */
async function chooseFile(page: Page, name: string, text: string) {
  const upserts: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/upsert-data')) upserts.push(request.url());
  });
  await page
    .getByLabel('JSON or JSONL file')
    .setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
  return upserts;
}

test('signing out stops a running upload: no batch goes out with the index token afterwards', async () => {
  await setQuotas(h.ctx.store, index.id, { max_writes_per_request: 2 });
  const page = await openDocuments();
  const docs = Array.from({ length: 10 }, (_, i) => JSON.stringify({ id: `so-${i}`, content: { text: `doc ${i}` } }));
  const upserts = await chooseFile(page, 'docs.jsonl', docs.join('\n'));
  // The first batch waits at the network until the user has signed out.
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route('**/upsert-data/**', async (route) => {
    await held;
    await route.continue().catch(() => {});
  });
  await page.getByLabel('Into namespace').fill('signout');
  await page.getByRole('button', { name: 'Upload' }).click();
  await expect.poll(() => upserts.length).toBe(1);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to searchplane' }).waitFor();
  expect(await sessionStorageOf(page)).toEqual({});
  release();
  // Without the abort the next batches follow within milliseconds of the first one's answer.
  await page.waitForTimeout(1000);
  expect(upserts).toHaveLength(1);
  expect(await fetchIds('signout', ['so-2', 'so-9'])).toEqual([null, null]);
  expect(h.pageProblems).toEqual([]);
  await setQuotas(h.ctx.store, index.id, { max_writes_per_request: 1000 });
});

test('a namespace name is kept exactly as typed, spaces included', async () => {
  const page = await openDocuments();
  await chooseFile(page, 'one.json', JSON.stringify([{ id: 'to-sp', content: { text: 'padded namespace' } }]));
  await page.getByLabel('Into namespace').fill(' sp ');
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.getByText('Uploaded 1 document into namespace  sp  in 1 batch.').waitFor();
  expect(await fetchIds(' sp ', ['to-sp'])).not.toEqual([null]);
  expect(await fetchIds('sp', ['to-sp'])).toEqual([null]);
  expect(await page.getByLabel('Namespace', { exact: true }).inputValue()).toBe(' sp ');
  expect(h.pageProblems).toEqual([]);
});

test('an empty array sends nothing, duplicate ids are counted once, and a pretty-printed file is read whole', async () => {
  const page = await openDocuments();
  const status = page.locator('.upload .form-status');

  let upserts = await chooseFile(page, 'empty.json', '[]');
  await page.getByLabel('Into namespace').fill('never');
  await page.getByRole('button', { name: 'Upload' }).click();
  await status.getByText('The file holds no documents: there was nothing to upload.').waitFor();
  expect(upserts).toEqual([]);
  expect(await page.getByLabel('Namespace', { exact: true }).locator('option', { hasText: 'never' }).count()).toBe(0);

  const twice = [
    { id: 'dup', content: { v: 'first' } },
    { id: 'dup', content: { v: 'second' } },
    { id: 'single', content: { v: 'only' } },
  ];
  upserts = await chooseFile(page, 'dups.json', JSON.stringify(twice));
  await page.getByLabel('Into namespace').fill('dups');
  await page.getByRole('button', { name: 'Upload' }).click();
  await status
    .getByText(
      'Uploaded 2 documents into namespace dups in 1 batch. The file has 3 entries: later entries with the same id replaced earlier ones.',
    )
    .waitFor();
  await page.getByText('Page 1: 2 documents').waitFor();

  // One document over several lines is a JSON file, not broken JSON Lines; so is a long array.
  await chooseFile(page, 'pretty.json', JSON.stringify({ id: 'pretty', content: { text: 'indented' } }, null, 2));
  await page.getByLabel('Into namespace').fill('pretty');
  await page.getByRole('button', { name: 'Upload' }).click();
  await status.getByText('Uploaded 1 document into namespace pretty in 1 batch.').waitFor();
  const array = [1, 2].map((i) => ({ id: `pretty-${i}`, content: { text: `item ${i}` } }));
  await chooseFile(page, 'pretty-array.json', JSON.stringify(array, null, 2));
  await page.getByRole('button', { name: 'Upload' }).click();
  await status.getByText('Uploaded 2 documents into namespace pretty in 1 batch.').waitFor();
  expect(await fetchIds('pretty', ['pretty', 'pretty-1', 'pretty-2'])).not.toContain(null);

  // JSON Lines still name the line that is broken.
  await chooseFile(page, 'broken.jsonl', '{"id":"a","content":{"t":1}}\n{"id":"b",\n');
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.getByText('Line 2 is not valid JSON.').waitFor();
  expect(h.pageProblems).toEqual([]);
});
