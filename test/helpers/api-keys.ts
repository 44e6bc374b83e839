import type { FastifyInstance } from 'fastify';
import { basic, json } from './app.js';
import type { TestAccount } from './factories.js';

/** An API key made through the API by `owner`, with its Basic header. */
export interface TestApiKey {
  id: string;
  key: string;
  auth: string;
}

let counter = 0;

/** Creates an API key of `owner` (with its own key, unless `as` is given) through `POST /v2/keys`. */
export async function createApiKey(
  app: FastifyInstance,
  owner: TestAccount,
  body: { name?: string; actions: string[]; indexes?: string[] | null; expires_at?: number | null },
  as = owner.auth,
): Promise<TestApiKey> {
  const response = await app.inject({
    method: 'POST',
    url: '/v2/keys',
    headers: { authorization: as },
    payload: { name: `key-${++counter}`, ...body },
  });
  if (response.statusCode !== 200) throw new Error(`createApiKey failed: ${response.statusCode} ${response.body}`);
  const created = json(response);
  return { id: created.id, key: created.key, auth: basic(owner.email, created.key) };
}
