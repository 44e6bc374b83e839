import { expect, test } from 'vitest';
import { injectAs, json } from '../helpers/app.js';
import { screenshots, signIn, useConsole } from './support/console-browser.js';

const h = useConsole();

const instances = async () => json<any[]>(await injectAs(h.ctx.app, 'GET', '/v2/messaging/users', h.account.auth));

test('lists the messaging instances and turns the production pack on and off', async () => {
  const [east] = (await instances()).filter((instance) => instance.region === 'us-east-1');
  const page = await h.newPage();
  await signIn(page, h.account);
  await page.getByRole('link', { name: 'Messaging' }).click();
  await page.getByRole('heading', { level: 1, name: 'Messaging instances' }).waitFor();
  // The heading renders before the instances arrive; the row is the signal that the list is in.
  const eastRow = page.locator(`tr[data-instance-id="${east.id}"]`);
  await eastRow.waitFor();
  expect(await page.locator('tbody tr').count()).toBe(2);
  expect(await eastRow.locator('td').first().textContent()).toBe('us-east-1');
  expect(await eastRow.innerText()).toMatch(/paid[\s\S]*Disabled/);
  await screenshots(page, 'messaging');

  await eastRow.getByRole('button', { name: 'Enable production pack in us-east-1' }).click();
  await eastRow.getByText('Enabled', { exact: true }).waitFor();
  expect((await instances()).find((instance) => instance.id === east.id).prod_pack_enabled).toBe(true);

  await eastRow.getByRole('button', { name: 'Disable production pack in us-east-1' }).click();
  await eastRow.getByText('Disabled', { exact: true }).waitFor();
  expect((await instances()).find((instance) => instance.id === east.id).prod_pack_enabled).toBe(false);
  expect(h.pageProblems).toEqual([]);
});

test("enabling the pack on a free instance shows the API's error and changes nothing", async () => {
  const [central] = (await instances()).filter((instance) => instance.region === 'eu-central-1');
  const setPlan = await injectAs(h.ctx.app, 'POST', `/v2/messaging/set-plan/${central.id}`, h.account.auth, {
    plan_name: 'free',
  });
  expect(setPlan.statusCode).toBe(200);

  const page = await h.newPage();
  await signIn(page, h.account);
  await page.goto('/console#/messaging');
  await page.getByRole('button', { name: 'Enable production pack in eu-central-1' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toMatch(/^eu-central-1: The production pack requires a paid plan/);
  expect((await instances()).find((instance) => instance.id === central.id).prod_pack_enabled).toBe(false);
  expect(await page.locator(`tr[data-instance-id="${central.id}"]`).innerText()).toMatch(/free[\s\S]*Disabled/);
  expect(h.pageProblems).toEqual([]);
});
