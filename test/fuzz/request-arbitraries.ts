import fc from 'fast-check';
import {
  badValue,
  contentType,
  cursorValue,
  extremeNumber,
  filterText,
  nastyString,
  pathSegment,
  rawBody,
} from './bad-values.js';

/** One HTTP request as app.inject takes it. */
export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

/** Credentials and ids the generated requests may use (never the canary's secrets). */
export interface FuzzWorld {
  /** Basic header of the fuzzing account. */
  auth: string;
  /** The fuzzing account's email (for headers with a wrong key). */
  email: string;
  /** The fuzzing account's index: its id may be read, renamed and fed, never deleted or rotated. */
  index: { id: string; endpoint: string; token: string; readOnlyToken: string };
  /** The canary's index: only its id and endpoint, to check that nobody else can touch it. */
  canary: { id: string; endpoint: string };
  messagingIds: string[];
  /** Basic header of an API key of the fuzzing account with a few actions, limited to its index. */
  limitedAuth: string;
  /** Id of an API key of the fuzzing account that may be deleted. */
  apiKeyId: string;
}

const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

function managementAuth(world: FuzzWorld) {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant<string | undefined>(world.auth) },
    { weight: 2, arbitrary: fc.constant<string | undefined>(world.limitedAuth) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<string | undefined>(
        undefined,
        'Basic',
        'Basic !!!',
        'Bearer x',
        basic('nocolon'),
        basic(`a\u0000b@example.com:${'k'.repeat(43)}`),
        basic(`${world.email}\u0000:key`),
        basic(`\ud800@example.com:key`),
        `Basic ${Buffer.from([0xff, 0xfe, 0x3a, 0x61]).toString('base64')}`,
        basic(`${'a'.repeat(5000)}@example.com:key`),
        basic(`%00@example.com:${'k'.repeat(43)}`),
      ),
    },
    // Wrong keys cost a real scrypt check each: rare, to keep the run short.
    { weight: 1, arbitrary: fc.constantFrom(basic(`${world.email}:wrong-key`), basic('nobody@example.com:key')) },
  );
}

function dataPlaneAuth(world: FuzzWorld) {
  return fc.oneof(
    { weight: 10, arbitrary: fc.constant<string | undefined>(`Bearer ${world.index.token}`) },
    { weight: 2, arbitrary: fc.constant<string | undefined>(`Bearer ${world.index.readOnlyToken}`) },
    {
      weight: 2,
      arbitrary: fc.constantFrom<string | undefined>(
        undefined,
        'Bearer',
        'Bearer x',
        `Bearer ${'t'.repeat(10_000)}`,
        `bearer ${world.index.token} extra`,
        world.auth,
      ),
    },
  );
}

/** A body as JSON text: the template as is, with a field broken, dropped or added, or something else. */
function bodyFrom(template: fc.Arbitrary<unknown>): fc.Arbitrary<string | undefined> {
  const broken = template.chain((value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return fc.constant(value);
    const keys = Object.keys(value);
    return fc.oneof(
      fc.constant(value),
      keys.length === 0
        ? fc.constant(value)
        : fc.tuple(fc.constantFrom(...keys), badValue).map(([key, bad]) => ({ ...(value as object), [key]: bad })),
      keys.length === 0
        ? fc.constant(value)
        : fc.constantFrom(...keys).map((key) => {
            const { [key]: _dropped, ...rest } = value as Record<string, unknown>;
            return rest;
          }),
      fc
        .tuple(fc.constantFrom('__proto__', 'constructor', 'prototype', 'extra', '\u0000', '\ud800'), badValue)
        .map(([key, bad]) => JSON.parse(JSON.stringify({ ...(value as object), [key]: bad }))),
    );
  });
  return fc.oneof(
    { weight: 8, arbitrary: broken.map((value) => JSON.stringify(value)) },
    { weight: 2, arbitrary: badValue.map((value) => JSON.stringify(value)) },
    { weight: 2, arbitrary: rawBody },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const flags = { includeData: fc.boolean(), includeMetadata: fc.boolean() };
const ids = fc.array(fc.oneof(fc.constantFrom('d1', 'd2', 'missing'), nastyString), { maxLength: 5 });

const document = fc.record(
  {
    id: fc.oneof(fc.constantFrom('d1', 'd2', 'd3'), nastyString),
    content: fc.oneof(
      fc.record({ title: fc.oneof(fc.constant('a small title'), nastyString), n: extremeNumber }),
      badValue,
    ),
    metadata: fc.oneof(fc.record({ n: extremeNumber, tag: nastyString }), badValue),
  },
  { requiredKeys: ['id', 'content'] },
);

/** Valid-looking bodies per data-plane route, for `bodyFrom` to break. */
const DATA_BODIES: Record<string, fc.Arbitrary<unknown>> = {
  'upsert-data': fc.oneof(fc.array(document, { maxLength: 4 }), document),
  search: fc.record(
    {
      query: fc.oneof(fc.constant('small title'), nastyString),
      topK: fc.oneof(fc.integer({ min: 1, max: 20 }), extremeNumber),
      filter: filterText,
      semanticWeight: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), extremeNumber),
      reranking: fc.boolean(),
      inputEnrichment: fc.boolean(),
      ...flags,
    },
    { requiredKeys: ['query'] },
  ),
  fetch: fc.oneof(
    fc.record({ ids, ...flags }, { requiredKeys: ['ids'] }),
    fc.record({ prefix: nastyString, ...flags }, { requiredKeys: ['prefix'] }),
    ids,
  ),
  delete: fc.oneof(fc.record({ ids }), fc.record({ prefix: nastyString }), fc.record({ filter: filterText }), ids),
  range: fc.record(
    {
      cursor: cursorValue,
      limit: fc.oneof(fc.integer({ min: 1, max: 50 }), extremeNumber),
      prefix: nastyString,
      ...flags,
    },
    { requiredKeys: ['limit'] },
  ),
  reset: fc.constant([]),
  'delete-namespace': fc.constant([]),
  info: fc.constant([]),
  'list-namespaces': fc.constant([]),
};
const NAMESPACED = new Set(['upsert-data', 'search', 'fetch', 'delete', 'range', 'reset', 'delete-namespace']);

function dataPlaneRequest(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const endpoint = fc.oneof(
    { weight: 12, arbitrary: fc.constant(world.index.endpoint) },
    { weight: 1, arbitrary: fc.constant(world.canary.endpoint) },
    { weight: 1, arbitrary: pathSegment },
  );
  return fc
    .record({
      route: fc.constantFrom(...Object.keys(DATA_BODIES)),
      endpoint,
      // Mostly the namespaces the run keeps filled, so filters and reads meet documents.
      namespace: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(undefined, 'ns') },
        { weight: 1, arbitrary: fc.option(pathSegment, { nil: undefined }) },
      ),
      method: fc.oneof({ weight: 10, arbitrary: fc.constant('POST') }, fc.constantFrom('GET', 'PUT', 'DELETE', 'HEAD')),
      authorization: dataPlaneAuth(world),
      type: contentType,
      query: fc.constantFrom('', '', '', '?all', '?all=%00', '?__proto__[x]=1', '?constructor=1&a=%ED%A0%80'),
    })
    .chain((parts) =>
      bodyFrom(DATA_BODIES[parts.route]).map((payload) => {
        const namespace = NAMESPACED.has(parts.route) && parts.namespace !== undefined ? `/${parts.namespace}` : '';
        return request(
          parts.method,
          `/indexes/${parts.endpoint}/${parts.route}${namespace}${parts.query}`,
          parts.authorization,
          parts.type,
          payload,
        );
      }),
    );
}

function managementRequest(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  // The fuzzing index may be read and renamed; deleting or rotating it would end the run's coverage.
  const readableId = fc.oneof(fc.constant(world.index.id), fc.constant(world.canary.id), pathSegment);
  const otherId = fc.oneof(fc.constant(world.canary.id), pathSegment);
  const messagingId = fc.oneof(fc.constantFrom(...world.messagingIds), pathSegment);
  const name = fc.oneof(fc.constantFrom('fuzzed', 'a.b-c_d', 'x'.repeat(64)), nastyString);
  const create = fc.record({
    name,
    region: fc.oneof(fc.constantFrom('eu-west-1', 'us-central1'), nastyString),
    type: fc.oneof(fc.constantFrom('payg', 'free', 'fixed'), nastyString),
  });
  const keyId = fc.oneof(fc.constant(world.apiKeyId), pathSegment);
  const grant = fc.oneof(fc.constantFrom('*', 'indexes.*', 'indexes.read', 'keys.write', 'nope.*'), nastyString);
  const createKey = fc.record(
    {
      name: fc.oneof(fc.constantFrom('fuzz-key', 'k'), nastyString),
      actions: fc.oneof(fc.array(grant, { maxLength: 4 }), badValue),
      indexes: fc.oneof(fc.constant([world.index.id]), fc.constant([world.canary.id]), fc.constant(null), badValue),
      expires_at: fc.oneof(fc.constant(null), extremeNumber),
    },
    { requiredKeys: ['name', 'actions'] },
  );
  const page = fc.constantFrom(
    '',
    '?limit=1',
    '?limit=0',
    '?limit=100000',
    '?cursor=%00',
    '?cursor=bm9wZQ',
    '?limit=2&cursor=WzEsIngiXQ',
  );
  const period = fc.constantFrom('', '?period=1h', '?period=30d', '?period=%00', '?period=1y', '?period=1h&period=3h');
  const routes: fc.Arbitrary<[string, fc.Arbitrary<string>, fc.Arbitrary<unknown> | undefined]> = fc.constantFrom(
    ['POST', fc.constant('/v2/search'), create] as const,
    ['GET', page.map((query) => `/v2/search${query}`), undefined] as const,
    ['GET', readableId.map((id) => `/v2/search/${id}`), undefined] as const,
    ['DELETE', otherId.map((id) => `/v2/search/${id}`), undefined] as const,
    ['POST', readableId.map((id) => `/v2/search/${id}/rename`), fc.record({ name })] as const,
    [
      'POST',
      otherId.map((id) => `/v2/search/${id}/reset-password`),
      fc.record({ grace_seconds: fc.oneof(fc.integer({ min: 0, max: 86_400 }), extremeNumber) }),
    ] as const,
    [
      'POST',
      otherId.map((id) => `/v2/search/${id}/transfer`),
      fc.record({ target_account: fc.oneof(fc.constant(world.email), fc.constant('nobody@example.com'), nastyString) }),
    ] as const,
    ['GET', fc.tuple(readableId, period).map(([id, p]) => `/v2/search/${id}/stats${p}`), undefined] as const,
    ['GET', fc.constant('/v2/search/stats'), undefined] as const,
    ['GET', fc.constant('/v2/messaging/users'), undefined] as const,
    ['GET', messagingId.map((id) => `/v2/messaging/user/${id}`), undefined] as const,
    ['POST', messagingId.map((id) => `/v2/messaging/enable-prodpack/${id}`), undefined] as const,
    ['POST', messagingId.map((id) => `/v2/messaging/disable-prodpack/${id}`), undefined] as const,
    [
      'POST',
      messagingId.map((id) => `/v2/messaging/set-plan/${id}`),
      fc.record({ plan_name: fc.oneof(fc.constantFrom('free', 'paid'), nastyString) }),
    ] as const,
    ['POST', fc.constant('/v2/keys'), createKey] as const,
    ['GET', page.map((query) => `/v2/keys${query}`), undefined] as const,
    ['DELETE', keyId.map((id) => `/v2/keys/${id}`), undefined] as const,
    [
      'GET',
      fc
        .constantFrom('', '?from=0', '?from=99999999999999999', '?to=1&from=2', '?from=-5', '?from=%00', '?to=1e3')
        .chain((range) => page.map((query) => `/v2/auditlogs${range}${range && query ? `&${query.slice(1)}` : query}`)),
      undefined,
    ] as const,
    ['GET', pathSegment.map((segment) => `/v2/${segment}`), undefined] as const,
    ['GET', pathSegment.map((segment) => `/${segment}`), undefined] as const,
  );
  return routes.chain(([method, url, template]) =>
    fc
      .record({
        url,
        method: fc.oneof(
          { weight: 10, arbitrary: fc.constant(method) },
          fc.constantFrom('GET', 'POST', 'PATCH', 'HEAD'),
        ),
        authorization: managementAuth(world),
        type: contentType,
        payload: template ? bodyFrom(template) : fc.oneof(fc.constant(undefined), bodyFrom(badValue)),
        idempotencyKey: fc.option(fc.constantFrom('fuzz-1', 'fuzz-2', '', 'has space', 'k'.repeat(300), '\u00e9'), {
          freq: 3,
          nil: undefined,
        }),
      })
      .map((parts) => {
        const built = request(parts.method, parts.url, parts.authorization, parts.type, parts.payload);
        if (parts.idempotencyKey !== undefined) built.headers['idempotency-key'] = parts.idempotencyKey;
        return built;
      }),
  );
}

function request(
  method: string,
  url: string,
  authorization: string | undefined,
  type: string | undefined,
  payload: string | undefined,
): FuzzRequest {
  const headers: Record<string, string> = {};
  if (authorization !== undefined) headers.authorization = authorization;
  if (type !== undefined && payload !== undefined) headers['content-type'] = type;
  const bodyless = method === 'GET' || method === 'HEAD';
  return { method, url, headers, ...(payload === undefined || bodyless ? {} : { payload }) };
}

/** Any request to any route of both planes (and to no route at all). */
export function fuzzRequest(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 3, arbitrary: dataPlaneRequest(world) },
    { weight: 2, arbitrary: managementRequest(world) },
  );
}
