import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { closedPort, useRemoteTarget } from './support/remote-cli.js';
import { parseJson } from './support/searchplane-process.js';

const remote = useRemoteTarget();

describe('login and logout', () => {
  test('login checks the key, saves a 0600 file; flags win over env, env over the file; logout removes it', async () => {
    const file = path.join(remote.configHome, 'searchplane', 'credentials.json');
    const { baseUrl } = remote.ctx;
    const { email, apiKey } = remote.account;

    const wrong = await remote.runBare(['login', '--url', baseUrl, '--email', email, '--key', 'wrong-key']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^searchplane: 401 unauthorized: /);
    expect(existsSync(file)).toBe(false);

    const noTerminal = await remote.runBare(['login', '--url', baseUrl]);
    expect(noTerminal.code).toBe(2);
    expect(noTerminal.stderr).toMatch(/--email \(SEARCHPLANE_EMAIL\), --key \(SEARCHPLANE_API_KEY\)/);

    const login = await remote.runBare(['login', '--url', `${baseUrl}/`, '--email', email, '--key', apiKey]);
    expect(login.code).toBe(0);
    expect(login.stdout).toContain(`logged in to ${baseUrl} as ${email}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ url: baseUrl, email, api_key: apiKey });

    // The file alone is enough.
    const fromFile = await remote.runBare(['indexes', 'list', '--json']);
    expect(fromFile.code).toBe(0);
    expect(parseJson(fromFile.stdout)).toEqual([]);

    // The environment wins over the file…
    const envKey = await remote.runBare(['indexes', 'list'], { SEARCHPLANE_API_KEY: 'wrong-key' });
    expect(envKey.code).toBe(1);
    expect(envKey.stderr).toMatch(/^searchplane: 401 unauthorized/);
    const port = await closedPort();
    const envUrl = await remote.runBare(['indexes', 'list'], { SEARCHPLANE_URL: `http://127.0.0.1:${port}` });
    expect(envUrl.stderr).toBe(`searchplane: cannot reach http://127.0.0.1:${port}/: connection refused\n`);

    // …and flags win over the environment, before or after the command name.
    const flagAfter = await remote.runBare(['indexes', 'list', '--key', apiKey], { SEARCHPLANE_API_KEY: 'wrong-key' });
    expect(flagAfter.code).toBe(0);
    const flagBefore = await remote.runBare(['--key', apiKey, 'indexes', 'list'], { SEARCHPLANE_API_KEY: 'wrong-key' });
    expect(flagBefore.code).toBe(0);
    const envOnly = await remote.runBare(['messaging', 'list', '--json'], {
      SEARCHPLANE_URL: baseUrl,
      SEARCHPLANE_EMAIL: email,
      SEARCHPLANE_API_KEY: apiKey,
    });
    expect(envOnly.code).toBe(0);

    const logout = await remote.runBare(['logout']);
    expect(logout.code).toBe(0);
    expect(existsSync(file)).toBe(false);
    expect((await remote.runBare(['logout'])).stdout).toMatch(/^not logged in/);
    expect((await remote.runBare(['indexes', 'get', 'x'])).code).toBe(2);
  });
});

describe('messaging', () => {
  test('list, get, set-plan, enable-prodpack (paid plan only) and disable-prodpack', async () => {
    const listed = await remote.run(['messaging', 'list', '--json']);
    expect(listed.code).toBe(0);
    const instances = parseJson(listed.stdout);
    expect(instances.map((instance: any) => instance.region).sort()).toEqual(['eu-central-1', 'us-east-1']);
    const { id } = instances[0];

    const table = await remote.run(['messaging', 'list']);
    expect(table.stdout.split('\n')[0].split(/\s{2,}/)).toEqual(['ID', 'REGION', 'PLAN', 'PROD PACK', 'STATE']);
    const shown = await remote.run(['messaging', 'get', id]);
    expect(shown.stdout).toMatch(new RegExp(`^id:\\s+${id}$`, 'm'));
    expect(shown.stdout).toMatch(/^production pack:\s+off$/m);

    expect((await remote.run(['messaging', 'set-plan', id, 'free'])).code).toBe(0);
    const refused = await remote.run(['messaging', 'enable-prodpack', id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^searchplane: 400 prodpack_requires_paid_plan: /);

    expect((await remote.run(['messaging', 'set-plan', id, 'paid'])).code).toBe(0);
    const enabled = await remote.run(['messaging', 'enable-prodpack', id]);
    expect(enabled.code).toBe(0);
    expect(parseJson((await remote.run(['messaging', 'get', id, '--json'])).stdout)).toMatchObject({
      type: 'paid',
      prod_pack_enabled: true,
    });
    expect((await remote.run(['messaging', 'disable-prodpack', id])).code).toBe(0);
    expect(parseJson((await remote.run(['messaging', 'get', id, '--json'])).stdout).prod_pack_enabled).toBe(false);

    const badPlan = await remote.run(['messaging', 'set-plan', id, 'gold']);
    expect(badPlan.code).toBe(1);
    expect(badPlan.stderr).toMatch(/^searchplane: 400 invalid_request: .*plan_name/);
    const unknown = await remote.run(['messaging', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^searchplane: 404 messaging_instance_not_found: /);
  });
});
