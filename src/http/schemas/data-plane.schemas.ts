import { type Static, type TSchema, Type } from 'typebox';
import { MAX_PAGE_SIZE, MAX_QUERY_LENGTH, MAX_TOP_K } from '../../engine/index.js';

/**
 * Request schemas of the per-index API, shaped as the `@upstash/search` SDK (and the
 * `@upstash/vector` client it builds on) sends them. Unknown fields are allowed because the SDKs
 * add fields of their own (e.g. `includeVectors`); optional fields also accept `null`, which
 * other clients send for "not set". Documents are validated by the engine, which names the
 * offending document and limit.
 */

/**
 * An optional field that may also be `null`. Written as a JSON-schema type list rather than an
 * `anyOf`, so a bad value gets one error ("must be <= 1") instead of one per branch.
 */
function optional<T extends TSchema>(schema: T) {
  const { type, ...keywords } = schema as unknown as { type: string | string[] };
  const types = Array.isArray(type) ? type : [type];
  return Type.Optional(Type.Unsafe<Static<T> | null>({ ...keywords, type: [...types, 'null'] }));
}

const readFlags = {
  includeData: optional(Type.Boolean({ description: 'Return each document’s content (default false)' })),
  includeMetadata: optional(Type.Boolean({ description: 'Return each document’s metadata (default false)' })),
};

const endpoint = Type.String({ description: 'The index endpoint name' });

/** Path params of `/indexes/{endpoint}/{route}` (the default namespace, `""`). */
export const EndpointParams = Type.Object({ endpoint });

/** Path params of `/indexes/{endpoint}/{route}/{namespace}`. */
export const NamespaceParams = Type.Object({
  endpoint,
  namespace: Type.String({ description: 'Namespace (the SDK’s index name)' }),
});

export const UpsertBody = Type.Union(
  [
    Type.Array(Type.Object({}, { description: '{ id, content: object, metadata?: object }' })),
    Type.Object({}, { description: 'A single document' }),
  ],
  { description: 'Documents to insert or replace by id' },
);

export const SearchBody = Type.Object({
  query: Type.String({ maxLength: MAX_QUERY_LENGTH, description: `At most ${MAX_QUERY_LENGTH} characters` }),
  topK: optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_TOP_K,
      description: 'Results to return (default 10); also at most the index’s max_reads_per_request',
    }),
  ),
  ...readFlags,
  filter: optional(Type.String({ description: 'Filter expression over content and metadata fields' })),
  reranking: optional(Type.Boolean({ description: 'Re-score the results with the reranker (rerank quota)' })),
  semanticWeight: optional(
    Type.Number({ minimum: 0, maximum: 1, description: '0 = full text only, 1 = semantic only (default 0.75)' }),
  ),
  inputEnrichment: optional(Type.Boolean({ description: 'Rewrite the query before searching (default true)' })),
  _appendOriginalInputToEnrichmentResult: optional(Type.Boolean()),
});

/** Checked by the service, which explains the accepted shapes in one message. */
export const FetchBody = Type.Unknown({
  description:
    '`{"ids": [...]}` or `{"prefix": "..."}`, each with optional includeData/includeMetadata; or an array of ids',
});

/** Checked by the service, which explains the accepted shapes in one message. */
export const DeleteBody = Type.Unknown({
  description: '`{"ids": [...]}`, `{"prefix": "..."}` or `{"filter": "..."}`; or an id or an array of ids',
});

export const RangeBody = Type.Object({
  // anyOf rather than a type list: Ajv's strict mode only allows a type list of one type plus null.
  cursor: Type.Optional(Type.Union([Type.String(), Type.Number(), Type.Null()], { description: '"" or 0 to start' })),
  limit: Type.Integer({
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    description: 'Documents per page; also at most the index’s max_reads_per_request',
  }),
  prefix: optional(Type.String()),
  ...readFlags,
});

export const ResetQuery = Type.Object({
  all: Type.Optional(
    Type.Union(
      ['', 'true', '1', 'false', '0'].map((value) => Type.Literal(value)),
      {
        description:
          '`reset?all` (as the SDK sends it), `all=true` or `all=1`: reset every namespace; `all=false` or `all=0`: only this one',
      },
    ),
  ),
});

/** Whether a reset's `?all` asks for every namespace (absent, `false` and `0` do not). */
export function resetsAll(all: string | undefined): boolean {
  return all === '' || all === 'true' || all === '1';
}

/** The success envelope `{"result": ...}`. */
export const resultOf = (description: string) =>
  Type.Object({ result: Type.Unknown({ description }) }, { additionalProperties: false });

/** The failure envelope `{"error": "...", "status": N, "code": "..."}`, HTTP status equal to `status`. */
export const DataPlaneErrorSchema = Type.Object(
  {
    error: Type.String({ description: 'What went wrong, for people (the SDK throws it)' }),
    status: Type.Integer({ description: 'The HTTP status, repeated' }),
    code: Type.String({ description: 'Stable snake_case error code' }),
  },
  { $id: 'DataPlaneError', title: 'DataPlaneError' },
);
