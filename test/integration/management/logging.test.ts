import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { basic } from '../../helpers/app.js';
import { createTestStore, type TestStore } from '../../helpers/store.js';

let testStore: TestStore;
const lines: string[] = [];

beforeAll(async () => {
  testStore = await createTestStore();
});
afterAll(async () => testStore.cleanup());

test('credentials never reach the log, even at trace level', async () => {
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  const config = loadConfig({ dataDir: testStore.dataDir, databaseUrl: testStore.databaseUrl }, { LOG_LEVEL: 'trace' });
  const app = await buildApp({ config, store: testStore.store, logger: { stream } });
  try {
    const { api_key } = await app.services.accounts.create('logger@example.com');
    const index = await app.inject({
      method: 'POST',
      url: '/v2/search',
      headers: { authorization: basic('logger@example.com', api_key) },
      payload: { name: 'logged', region: 'eu-west-1', type: 'payg' },
    });
    expect(index.statusCode).toBe(200);
    await app.inject({
      method: 'GET',
      url: '/v2/search',
      headers: { authorization: basic('logger@example.com', 'wrong-key') },
    });

    const log = lines.join('');
    expect(log).toContain('"url":"/v2/search"');
    expect(log).not.toContain(api_key);
    expect(log).not.toContain(Buffer.from(`logger@example.com:${api_key}`).toString('base64'));
    expect(log).not.toContain(index.json().token);
  } finally {
    await app.close();
  }
});
