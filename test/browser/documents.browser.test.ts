import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { json } from '../helpers/app.js';
import { callIndex, makeDocs, setQuotas } from '../helpers/data-plane.js';
import { createIndex } from '../helpers/factories.js';
import { fieldError, focusInfo, screenshots, signIn, useConsole } from './support/console-browser.js';

const h = useConsole();
let index: any;
beforeAll(async () => {
  index = await createIndex(h.ctx.app, h.account, { name: 'library', type: 'payg' });
  const books = makeDocs(25, 'book-');
  expect((await callIndex(h.ctx.app, index.endpoint, 'upsert-data/books', index.token, books)).statusCode).toBe(200);
});

const fetchIds = async (namespace: string, ids: string[]) =>
  json(await callIndex(h.ctx.app, index.endpoint, `fetch/${namespace}`, index.token, { ids })).result as unknown[];

async function openDocuments(namespace: string) {
  const page = await h.newPage();
  await signIn(page, h.account);
  await page.goto(`/console#/indexes/${index.id}/documents`);
  await page.getByLabel('Namespace', { exact: true }).selectOption(namespace);
  return page;
}

test('pages through a namespace with range cursors and fetches a document by id', async () => {
  const page = await openDocuments('books');
  const ids = page.locator('.doc-list .hit-id');
  await page.getByText('Page 1: 20 documents').waitFor();
  const first = await ids.allTextContents();
  expect(first).toHaveLength(20);

  await page.getByRole('button', { name: 'Next page' }).click();
  await page.getByText('Page 2: 5 documents').waitFor();
  const second = await ids.allTextContents();
  expect(second).toHaveLength(5);
  expect(new Set([...first, ...second]).size).toBe(25);
  expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
  await page.getByRole('button', { name: 'Previous page' }).click();
  await page.getByText('Page 1: 20 documents').waitFor();
  expect(await ids.allTextContents()).toEqual(first);
  await screenshots(page, 'documents');

  await page.getByLabel('Document id').fill('book-7');
  await page.getByRole('button', { name: 'Fetch' }).click();
  const fetched = page.locator('.fetched .doc');
  await fetched.waitFor();
  expect(await fetched.locator('.hit-id').textContent()).toBe('book-7');
  expect(await fetched.locator('.kv.content').innerText()).toContain('Document number 7');
  expect(await fetched.locator('.kv.metadata').innerText()).toMatch(/position\s+7/);

  await page.getByLabel('Document id').fill('no-such-book');
  await page.getByRole('button', { name: 'Fetch' }).click();
  await page.getByText('No document "no-such-book" in namespace books.').waitFor();
  expect(h.pageProblems).toEqual([]);
});

test('deletes a document only after confirming; Escape cancels and the dialog keeps the focus', async () => {
  const page = await openDocuments('books');
  await page.getByText('Page 1: 20 documents').waitFor();
  const deleteButton = page.getByRole('button', { name: 'Delete book-3', exact: true });

  await deleteButton.click();
  const dialog = page.getByRole('dialog', { name: 'Delete document' });
  await dialog.waitFor();
  for (let i = 0; i < 5; i++) {
    await page.keyboard.press('Tab');
    expect((await focusInfo(page)).inDialog).toBe(true);
  }
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  expect(await fetchIds('books', ['book-3'])).not.toEqual([null]);
  // Focus returns to the button that opened the dialog.
  expect((await focusInfo(page)).tag).toBe('BUTTON');

  await deleteButton.click();
  await dialog.getByRole('button', { name: 'Delete document' }).click();
  await page.getByRole('status').filter({ hasText: 'Deleted book-3' }).waitFor();
  await page.getByText('Page 1: 20 documents').waitFor();
  await expect.poll(() => page.locator('.doc-list .hit-id').allTextContents()).not.toContain('book-3');
  expect(await fetchIds('books', ['book-3'])).toEqual([null]);
  expect(h.pageProblems).toEqual([]);
});

test("uploads a JSONL file in batches of the index's max_writes_per_request, with progress", async () => {
  await setQuotas(h.ctx.store, index.id, { max_writes_per_request: 4 });
  const docs = Array.from({ length: 10 }, (_, i) => ({
    id: `up-${i}`,
    content: { text: `uploaded ${i}` },
    metadata: { i },
  }));
  const file = path.join(h.ctx.dataDir, 'docs.jsonl');
  writeFileSync(file, `${docs.map((doc) => JSON.stringify(doc)).join('\n')}\n`);

  const page = await openDocuments('');
  const batches: number[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/upsert-data/uploads')) batches.push((request.postDataJSON() as unknown[]).length);
  });
  await page.getByLabel('JSON or JSONL file').setInputFiles(file);
  await page.getByLabel('Into namespace').fill('uploads');
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.getByText('Uploaded 10 documents into namespace uploads in 3 batches.').waitFor();
  expect(batches).toEqual([4, 4, 2]);
  expect(await page.locator('#upload-progress').getAttribute('value')).toBe('10');
  expect(await page.getByText('10 of 10 documents uploaded').count()).toBe(1);
  // The browser switches to the new namespace and lists what arrived.
  expect(await page.getByLabel('Namespace', { exact: true }).inputValue()).toBe('uploads');
  await page.getByText('Page 1: 10 documents').waitFor();
  const stored = await fetchIds(
    'uploads',
    docs.map((doc) => doc.id),
  );
  expect(stored.every((doc) => doc !== null)).toBe(true);

  // A JSON array works too; a broken file is reported on the file field and nothing is sent.
  const arrayFile = path.join(h.ctx.dataDir, 'docs.json');
  writeFileSync(arrayFile, JSON.stringify([{ id: 'arr-1', content: { text: 'from an array' } }]));
  await page.getByLabel('JSON or JSONL file').setInputFiles(arrayFile);
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.getByText('Uploaded 1 document into namespace uploads in 1 batch.').waitFor();
  expect(await fetchIds('uploads', ['arr-1'])).not.toEqual([null]);

  const broken = path.join(h.ctx.dataDir, 'broken.jsonl');
  writeFileSync(broken, '{"id":"ok","content":{"a":"b"}}\n{not json\n');
  const sentBefore = batches.length;
  await page.getByLabel('JSON or JSONL file').setInputFiles(broken);
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.getByText('Line 2 is not valid JSON.').waitFor();
  expect(batches.length).toBe(sentBefore);
  expect(await fetchIds('uploads', ['ok'])).toEqual([null]);
  await screenshots(page, 'documents-upload');
  expect(h.pageProblems).toEqual([]);
});

test('a failed page load keeps the list, the pager and the namespace as they were, and Next retries', async () => {
  const other = [{ id: 'o1', content: { text: 'another namespace' } }];
  expect((await callIndex(h.ctx.app, index.endpoint, 'upsert-data/other', index.token, other)).statusCode).toBe(200);
  const page = await openDocuments('books');
  await page.getByText('Page 1: 20 documents').waitFor();
  const ids = page.locator('.doc-list .hit-id');
  const first = await ids.allTextContents();
  const next = page.getByRole('button', { name: 'Next page' });
  const unavailable = { status: 503, contentType: 'application/json', body: '{"error":"try later","status":503}' };
  let failures = 1;
  await page.route('**/range/books', (route) => (failures-- > 0 ? route.fulfill(unavailable) : route.continue()));

  await next.click();
  await page.getByRole('alert').filter({ hasText: 'try later' }).waitFor();
  expect(await page.locator('.page-info').textContent()).toBe('Page 1: 20 documents');
  expect(await ids.allTextContents()).toEqual(first);
  expect(await next.isDisabled()).toBe(false);
  await next.click();
  await page.getByText(/^Page 2: \d+ documents?$/).waitFor();
  const secondPage = await page.locator('.page-info').textContent();

  // A namespace that fails to load: the select goes back to the namespace whose documents are
  // shown, so their Delete buttons and the select agree.
  await page.route('**/range/other', (route) => route.fulfill(unavailable));
  await page.getByLabel('Namespace', { exact: true }).selectOption('other');
  await page.getByRole('alert').filter({ hasText: 'Namespace other could not be loaded' }).waitFor();
  expect(await page.getByLabel('Namespace', { exact: true }).inputValue()).toBe('books');
  expect(await page.locator('.page-info').textContent()).toBe(secondPage);
  const shown = (await ids.allTextContents())[0];
  const deleted = page.waitForRequest((request) => /\/delete\//.test(request.url()));
  await page.getByRole('button', { name: `Delete ${shown}`, exact: true }).click();
  await page.getByRole('dialog', { name: 'Delete document' }).getByRole('button', { name: 'Delete document' }).click();
  expect(new URL((await deleted).url()).pathname).toBe(`/indexes/${index.endpoint}/delete/books`);
  await page
    .getByRole('status')
    .filter({ hasText: `Deleted ${shown}` })
    .waitFor();
  expect(await fetchIds('books', [shown])).toEqual([null]);
  expect(h.pageProblems).toEqual([]);
});

test('ids are exact: a padded id is fetched as typed', async () => {
  const padded = { id: ' padded id ', content: { text: 'spaces around the id' } };
  expect((await callIndex(h.ctx.app, index.endpoint, 'upsert-data/padded', index.token, [padded])).statusCode).toBe(
    200,
  );
  const page = await openDocuments('padded');
  await page.getByLabel('Document id').fill(' padded id ');
  await page.getByRole('button', { name: 'Fetch' }).click();
  const fetched = page.locator('.fetched .doc');
  await fetched.waitFor();
  expect(await fetched.locator('.hit-id').textContent()).toBe(' padded id ');
  expect(h.pageProblems).toEqual([]);
});

/** A POST whose path goes out as written (fetch and inject would resolve its dot segments). */
function postAsIs(pathname: string, token: string, body: unknown): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(h.ctx.baseUrl);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const request = httpRequest({ hostname, port, path: pathname, method: 'POST', headers }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode));
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

test('a namespace named ".." is explained, never requested (a browser cannot address it)', async () => {
  const dots = await createIndex(h.ctx.app, h.account, { name: 'dots', type: 'payg' });
  const doc = [{ id: 'dd', content: { text: 'in ..' } }];
  expect(await postAsIs(`/indexes/${dots.endpoint}/upsert-data/%2E%2E`, dots.token, doc)).toBe(200);
  const listed = json(await callIndex(h.ctx.app, dots.endpoint, 'list-namespaces', dots.token)).result;
  expect(listed).toContain('..');

  const page = await h.newPage();
  await signIn(page, h.account);
  await page.goto(`/console#/indexes/${dots.id}/documents`);
  await page.getByText('This namespace has no documents.').waitFor();
  const sent: string[] = [];
  page.on('request', (request) => sent.push(request.url()));
  await page.getByLabel('Namespace', { exact: true }).selectOption('..');
  await page.getByRole('alert').filter({ hasText: 'cannot be used from a browser' }).waitFor();
  expect(await page.getByLabel('Namespace', { exact: true }).inputValue()).toBe('');

  // Nor as an upload target ("." would land in the default namespace).
  await page.getByLabel('JSON or JSONL file').setInputFiles({
    name: 'one.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify([{ id: 'dot', content: { text: 'meant for "."' } }])),
  });
  await page.getByLabel('Into namespace').fill('.');
  await page.getByRole('button', { name: 'Upload' }).click();
  await expect
    .poll(async () => (await fieldError(page, 'Into namespace')).textContent())
    .toMatch(/cannot be used from a browser/);
  expect(sent.filter((url) => url.includes('/indexes/'))).toEqual([]);
  expect(json(await callIndex(h.ctx.app, dots.endpoint, 'fetch', dots.token, { ids: ['dot'] })).result).toEqual([null]);
  expect(h.pageProblems).toEqual([]);
});

test('per-request limits of -1 (unlimited) leave pages at 20 documents and uploads in one batch', async () => {
  const open = await createIndex(h.ctx.app, h.account, { name: 'open-ended', type: 'payg' });
  await setQuotas(h.ctx.store, open.id, { max_reads_per_request: -1, max_writes_per_request: -1 });
  expect((await callIndex(h.ctx.app, open.endpoint, 'upsert-data', open.token, makeDocs(25))).statusCode).toBe(200);
  const page = await h.newPage();
  await signIn(page, h.account);
  await page.goto(`/console#/indexes/${open.id}/documents`);
  await page.getByText('Page 1: 20 documents').waitFor();

  let batches = 0;
  page.on('request', (request) => {
    if (request.url().includes('/upsert-data')) batches++;
  });
  const docs = makeDocs(30, 'many-').map((doc) => JSON.stringify(doc));
  await page.getByLabel('JSON or JSONL file').setInputFiles({
    name: 'many.jsonl',
    mimeType: 'application/x-ndjson',
    buffer: Buffer.from(docs.join('\n')),
  });
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.getByText('Uploaded 30 documents into namespace (default) in 1 batch.').waitFor();
  expect(batches).toBe(1);
  expect(h.pageProblems).toEqual([]);
});
