import { expect, test } from 'vitest';
import { callIndex, makeDocs } from '../helpers/data-plane.js';
import { createAccount, createIndex } from '../helpers/factories.js';
import { screenshots, signIn, startConsole, useConsole } from './support/console-browser.js';

const h = useConsole();

test('the index page shows the REST URL, masked tokens with reveal and copy, and quotas against usage', async () => {
  const index = await createIndex(h.ctx.app, h.account, { name: 'movies', type: 'payg' });
  await callIndex(h.ctx.app, index.endpoint, 'upsert-data', index.token, makeDocs(4));
  await callIndex(h.ctx.app, index.endpoint, 'search', index.token, { query: 'topic', topK: 3 });
  await callIndex(h.ctx.app, index.endpoint, 'search', index.token, { query: 'number', topK: 3 });

  const page = await h.newPage();
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.ctx.baseUrl });
  await signIn(page, h.account);
  await page.goto(`/console#/indexes/${index.id}`);
  await page.getByRole('heading', { level: 1, name: 'movies' }).waitFor();

  await screenshots(page, 'index-page');
  const connect = page.getByRole('region', { name: 'Connect' });
  expect(await connect.getByText(`${h.ctx.baseUrl}/indexes/${index.endpoint}`, { exact: true }).count()).toBe(1);

  // Tokens start masked: neither appears anywhere on the page until revealed.
  const body = await page.locator('body').innerText();
  expect(body).not.toContain(index.token);
  expect(body).not.toContain(index.read_only_token);
  await connect.getByRole('button', { name: 'Reveal token (read-write)' }).click();
  await connect.getByText(index.token, { exact: true }).waitFor();
  expect(await connect.getByRole('button', { name: 'Hide token (read-write)' }).getAttribute('aria-pressed')).toBe(
    'true',
  );
  expect(await page.locator('body').innerText()).not.toContain(index.read_only_token);
  await connect.getByRole('button', { name: 'Copy read-only token' }).click();
  await page.getByRole('status').filter({ hasText: 'copied' }).waitFor();
  expect(await page.evaluate('navigator.clipboard.readText()')).toBe(index.read_only_token);
  await connect.getByRole('button', { name: 'Hide token (read-write)' }).click();
  expect(await page.locator('body').innerText()).not.toContain(index.token);

  // Quotas: payg limits documents (a bar) and nothing per day or month ("unlimited", no bar).
  const documents = page.getByRole('meter', { name: 'Documents' });
  expect(await documents.getAttribute('aria-valuenow')).toBe('4');
  expect(await documents.getAttribute('aria-valuemax')).toBe(String(index.max_vector_count));
  const quotas = page.getByRole('region', { name: 'Usage and quotas' });
  expect(await quotas.getByText('2 of unlimited').count()).toBe(1); // queries today
  expect(await page.getByRole('meter', { name: 'Queries today' }).count()).toBe(0);
  expect(await page.getByRole('meter').count()).toBe(1);
  expect(h.pageProblems).toEqual([]);
});

test('a free index shows a bar per quota with its current usage', async () => {
  const account = await createAccount(h.ctx.app);
  const index = await createIndex(h.ctx.app, account, { name: 'small', type: 'free' });
  await callIndex(h.ctx.app, index.endpoint, 'upsert-data', index.token, makeDocs(2));
  await callIndex(h.ctx.app, index.endpoint, 'search', index.token, { query: 'topic', topK: 1 });

  const page = await h.newPage();
  await signIn(page, account);
  await page.goto(`/console#/indexes/${index.id}`);
  await page.getByRole('heading', { level: 1, name: 'small' }).waitFor();
  const meters = page.getByRole('meter');
  expect(await meters.count()).toBe(5);
  const read = async (name: string) => {
    const meter = page.getByRole('meter', { name });
    return [await meter.getAttribute('aria-valuenow'), await meter.getAttribute('aria-valuemax')];
  };
  expect(await read('Documents')).toEqual(['2', String(index.max_vector_count)]);
  expect(await read('Queries today')).toEqual(['1', String(index.max_daily_queries)]);
  expect(await read('Updates today')).toEqual(['1', String(index.max_daily_updates)]);
  expect(await read('Reranks this month')).toEqual(['0', String(index.max_monthly_reranks)]);
  const [bandwidth, bandwidthMax] = await read('Bandwidth this month');
  expect(Number(bandwidth)).toBeGreaterThan(0);
  expect(bandwidthMax).toBe(String(index.max_monthly_bandwidth));
  expect(h.pageProblems).toEqual([]);
});

/**
 * The chart's latest point is the current minute, so the traffic and the checks of it must fall in
 * one minute: too close to a minute's end, wait for the next one (the checks take a few seconds).
 */
async function startOfAMinuteWithRoom(neededMs = 25_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < neededMs) await new Promise((resolve) => setTimeout(resolve, left + 250));
}

test('the throughput chart reads out points on hover and with the keyboard, per chosen period', async () => {
  const index = await createIndex(h.ctx.app, h.account, { name: 'busy', type: 'payg' });
  await startOfAMinuteWithRoom();
  for (let i = 0; i < 3; i++)
    await callIndex(h.ctx.app, index.endpoint, 'search', index.token, { query: 'x', topK: 1 });
  await callIndex(h.ctx.app, index.endpoint, 'upsert-data', index.token, makeDocs(1));

  const page = await h.newPage();
  await signIn(page, h.account);
  await page.goto(`/console#/indexes/${index.id}`);
  const chart = page.getByRole('img', { name: /^Requests \(Last hour\)/ });
  await chart.waitFor();
  const readout = page.locator('.chart-readout').first();

  // Keyboard: focusing selects the latest point (this minute), arrows move.
  await chart.focus();
  await expect.poll(() => readout.textContent()).toMatch(/Queries: 3\s*Updates: 1$/);
  await page.keyboard.press('ArrowLeft');
  await expect.poll(() => readout.textContent()).toMatch(/Queries: 0\s*Updates: 0$/);
  await page.keyboard.press('End');
  await expect.poll(() => readout.textContent()).toMatch(/Queries: 3/);
  await chart.blur();

  // Pointer: hovering the right edge shows the latest point too.
  const box = (await chart.boundingBox())!;
  await page.mouse.move(box.x + box.width - 3, box.y + box.height / 2);
  await expect.poll(() => readout.textContent()).toMatch(/Queries: 3\s*Updates: 1$/);
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
  await expect.poll(() => readout.textContent()).toMatch(/Queries: 0/);

  // The bandwidth chart, over the same period, has this minute's bytes at its latest point.
  const bandwidth = page.getByRole('img', { name: /^Bandwidth \(Last hour\)/ });
  await bandwidth.focus();
  await page.keyboard.press('End');
  await expect
    .poll(() => page.locator('.chart-readout').nth(1).textContent())
    .toMatch(/Bandwidth: [1-9][\d.]* (B|KB)$/);

  // Another period asks the stats route for it and redraws.
  const asked = page.waitForRequest((request) => request.url().includes(`/v2/search/${index.id}/stats?period=7d`));
  await page.getByLabel('Period').selectOption('7d');
  await asked;
  await page.getByRole('img', { name: /^Requests \(Last 7 days\)/ }).focus();
  await expect.poll(() => page.locator('.chart-readout').first().textContent()).toMatch(/Queries: 3\s*Updates: 1$/);
  await page.getByRole('img', { name: /^Bandwidth \(Last 7 days\)/ }).focus();
  await page.keyboard.press('End');
  await expect
    .poll(() => page.locator('.chart-readout').nth(1).textContent())
    .toMatch(/Bandwidth: [1-9][\d.]* (B|KB)$/);
  expect(h.pageProblems).toEqual([]);
});

test('with a data domain the REST URL is the host form, and the path form is shown too', async () => {
  const withDomain = await startConsole({ env: { SEARCHPLANE_DATA_DOMAIN: 'search.test' } });
  try {
    const index = await createIndex(withDomain.ctx.app, withDomain.account, { name: 'hosted' });
    const page = await withDomain.newPage();
    await signIn(page, withDomain.account);
    await page.goto(`/console#/indexes/${index.id}`);
    const connect = page.getByRole('region', { name: 'Connect' });
    await connect.waitFor();
    const port = new URL(withDomain.ctx.baseUrl).port;
    const text = await connect.innerText();
    expect(text).toContain(`http://${index.endpoint}.search.test:${port}`);
    expect(text).toContain(`${withDomain.ctx.baseUrl}/indexes/${index.endpoint}`);
    expect(withDomain.pageProblems).toEqual([]);
  } finally {
    await withDomain.close();
  }
});
