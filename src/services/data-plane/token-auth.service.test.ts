import { describe, expect, test } from 'vitest';
import type { SearchIndexRow } from '../../store/repositories/search-index.repository.js';
import { DEFAULT_PLANS, quotasOf } from '../plans.js';
import { DATA_PLANE_ROUTES, DataPlaneAuthenticator, parseBearer, READ_ONLY_ROUTES } from './token-auth.service.js';

const row: SearchIndexRow = {
  id: 'idx-1',
  customer_id: 'a@example.com',
  name: 'movies',
  endpoint: 'brave-fox-12345-us1',
  type: 'free',
  region: 'us-central1',
  integration_email: '',
  token: 'full-token-value',
  read_only_token: 'read-only-value',
  ...quotasOf(DEFAULT_PLANS.free),
  creation_time: 0,
  input_enrichment_enabled: 0,
};

const lookups: string[] = [];
const auth = new DataPlaneAuthenticator({
  findByEndpoint: async (endpoint: string) => {
    lookups.push(endpoint);
    return endpoint === row.endpoint ? row : undefined;
  },
});

describe('DataPlaneAuthenticator', () => {
  test('the full token and the read-only token authenticate with their kind and the record’s quotas', async () => {
    const full = await auth.authenticate(row.endpoint, 'Bearer full-token-value');
    expect(full).toEqual({
      indexId: 'idx-1',
      endpoint: row.endpoint,
      readOnly: false,
      quotas: quotasOf(DEFAULT_PLANS.free),
      inputEnrichmentEnabled: false,
    });
    expect((await auth.authenticate(row.endpoint, 'bearer  read-only-value ')).readOnly).toBe(true);
  });

  test('the record head read with the row (PostgreSQL) goes with the caller to the engine', async () => {
    const withHead = new DataPlaneAuthenticator({ findByEndpoint: async () => ({ ...row, record_head: 42 }) });
    expect((await withHead.authenticate(row.endpoint, 'Bearer read-only-value')).recordHead).toBe(42);
    expect((await auth.authenticate(row.endpoint, 'Bearer full-token-value')).recordHead).toBeUndefined();
  });

  test.each([
    ['no header', undefined],
    ['another scheme', 'Basic full-token-value'],
    ['a wrong token', 'Bearer full-token-valuX'],
    ['a prefix of the token', 'Bearer full-token'],
    ['an empty token', 'Bearer '],
  ])('%s is unauthorized with the SDK’s message', async (_case, header) => {
    await expect(auth.authenticate(row.endpoint, header)).rejects.toMatchObject({
      code: 'unauthorized',
      message: 'Unauthorized: Invalid auth token',
    });
  });

  test('unknown and absurd endpoints are unauthorized too; absurd ones are not looked up', async () => {
    await expect(auth.authenticate('unknown', 'Bearer full-token-value')).rejects.toMatchObject({
      code: 'unauthorized',
    });
    lookups.length = 0;
    await expect(auth.authenticate('x'.repeat(500), 'Bearer full-token-value')).rejects.toMatchObject({
      code: 'unauthorized',
    });
    expect(lookups).toEqual([]);
  });

  test('read-only callers may call exactly search, fetch, range, info and list-namespaces', async () => {
    const readOnly = await auth.authenticate(row.endpoint, 'Bearer read-only-value');
    const full = await auth.authenticate(row.endpoint, 'Bearer full-token-value');
    for (const route of DATA_PLANE_ROUTES) {
      expect(() => auth.authorize(full, route)).not.toThrow();
      if (READ_ONLY_ROUTES.has(route)) expect(() => auth.authorize(readOnly, route)).not.toThrow();
      else {
        expect(() => auth.authorize(readOnly, route)).toThrow(
          expect.objectContaining({
            code: 'forbidden',
            message: `Forbidden: /${route} is not allowed with a read-only token`,
          }),
        );
      }
    }
    expect([...READ_ONLY_ROUTES].sort()).toEqual(['fetch', 'info', 'list-namespaces', 'range', 'search']);
  });
});

test('parseBearer', () => {
  expect(parseBearer('Bearer abc')).toBe('abc');
  expect(parseBearer('bearer abc')).toBe('abc');
  expect(parseBearer('Bearer a b')).toBeUndefined();
  expect(parseBearer('Token abc')).toBeUndefined();
  expect(parseBearer(undefined)).toBeUndefined();
});
