/** Marks the schema of a route that also takes no body at all (see {@link withOptionalBodies}). */
export const OPTIONAL_BODY = 'x-optional-body';

type Operation = { requestBody?: { required?: boolean }; [OPTIONAL_BODY]?: boolean };

/**
 * @fastify/swagger documents every body as required, as Fastify validates a missing body against
 * the schema; a route that fills in a missing body itself says {@link OPTIONAL_BODY} in its route
 * schema (which @fastify/swagger copies to the operation, as every `x-` key), and here its request
 * body becomes optional and the marker goes.
 */
export function withOptionalBodies<T extends { paths?: object }>(document: T): T {
  for (const item of Object.values(document.paths ?? {}) as Record<string, Operation>[]) {
    for (const operation of Object.values(item ?? {})) {
      if (operation?.[OPTIONAL_BODY] === undefined) continue;
      delete operation[OPTIONAL_BODY];
      if (operation.requestBody) operation.requestBody.required = false;
    }
  }
  return document;
}
