import type { FastifyReply } from 'fastify';
import { type TSchema, type TUnsafe, Type } from 'typebox';

/** A string enum as a plain JSON-schema `enum`, so validation errors list the allowed values. */
export function StringEnum<const T extends readonly string[]>(values: T, options: object = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const ErrorDetailSchema = Type.Object({
  field: Type.Optional(Type.String()),
  message: Type.String(),
  allowed: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number()]))),
});

export const ErrorSchema = Type.Object(
  {
    error: Type.String({ description: 'What went wrong, for people' }),
    code: Type.String({ description: 'Stable snake_case error code' }),
    details: Type.Optional(Type.Array(ErrorDetailSchema)),
  },
  { $id: 'ManagementError', title: 'ManagementError' },
);

export const OkSchema = Type.Literal('OK', { description: 'The JSON string "OK"' });

/**
 * Fastify sends string payloads verbatim, so the JSON string "OK" must be sent already
 * encoded, with a JSON content type.
 */
export function sendOk(reply: FastifyReply): FastifyReply {
  return reply.type('application/json; charset=utf-8').send('"OK"');
}

export const UuidParams = Type.Object({ id: Type.String({ description: 'Resource ID (uuid)' }) });

const ref = Type.Ref('ManagementError');

/**
 * Error responses every authenticated management route documents, plus route-specific ones. Any
 * route may answer 400 (text with NUL or lone surrogates in its path or query), 403 (an API key
 * without the route's action), 414 (an overlong path segment) and 503 (the store cannot be
 * reached, or the node is starting).
 */
export function managementErrors(...statuses: number[]): Record<number, TSchema> {
  const responses: Record<number, TSchema> = { 400: ref, 401: ref, 403: ref, 414: ref, 429: ref, 500: ref, 503: ref };
  for (const status of statuses) responses[status] = ref;
  return responses;
}
