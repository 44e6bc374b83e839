import type { FastifyInstance } from 'fastify';
import { basic, json } from './app.js';

export interface TestAccount {
  email: string;
  apiKey: string;
  auth: string;
}

let counter = 0;

/** Creates an account through the service (as the CLI does) and returns its Basic header. */
export async function createAccount(
  app: FastifyInstance,
  email = `user${++counter}-${Date.now()}@example.com`,
): Promise<TestAccount> {
  const { api_key } = await app.services.accounts.create(email);
  return { email, apiKey: api_key, auth: basic(email, api_key) };
}

/** Creates a search index through the API and returns its record. */
export async function createIndex(
  app: FastifyInstance,
  account: TestAccount,
  body: Partial<{ name: string; region: string; type: string }> = {},
): Promise<any> {
  const response = await app.inject({
    method: 'POST',
    url: '/v2/search',
    headers: { authorization: account.auth },
    payload: { name: `index-${++counter}`, region: 'us-central1', type: 'payg', ...body },
  });
  if (response.statusCode !== 200) throw new Error(`createIndex failed: ${response.statusCode} ${response.body}`);
  return json(response);
}
