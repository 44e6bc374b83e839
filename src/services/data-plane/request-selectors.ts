import type { DeleteSelector } from '../../engine/contract.js';
import { AppError } from '../../errors.js';

/**
 * The request bodies of fetch and delete come in several shapes (the vector API's heritage);
 * they are parsed here rather than by a schema union so a wrong shape gets one clear message.
 */

export type IdsOrPrefix = { ids: string[] } | { prefix: string };

export interface ReadFlags {
  includeData: boolean;
  includeMetadata: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is string | number =>
  typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

function idList(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || !value.every(isId)) {
    throw new AppError('invalid_request', `${what} must be an array of ids (strings)`, {
      details: [{ field: 'ids', message: 'must be an array of strings' }],
    });
  }
  return value.map(String);
}

/**
 * Refuses a body naming several selectors: which one wins would be a guess, and for a delete a
 * wrong guess (the prefix, say, without the filter meant to narrow it) removes more than asked.
 */
function onlyOne(body: Record<string, unknown>, selectors: string[], what: string): void {
  const given = selectors.filter((name) => body[name] !== undefined && body[name] !== null);
  if (given.length > 1) {
    throw new AppError(
      'invalid_request',
      `${what} takes one of ${selectors.join(', ')}; this request has ${given.join(' and ')}`,
    );
  }
}

function flag(body: Record<string, unknown>, name: 'includeData' | 'includeMetadata'): boolean {
  const value = body[name];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new AppError('invalid_request', `${name} must be a boolean`);
  return value;
}

/** `[ids]`, `{ids, includeData?, includeMetadata?}` or `{prefix, ...}`; flags default to false. */
export function parseFetchBody(body: unknown): { selector: IdsOrPrefix; flags: ReadFlags } {
  if (Array.isArray(body)) return { selector: { ids: idList(body, 'fetch') }, flags: readFlags({}) };
  if (isObject(body)) {
    onlyOne(body, ['ids', 'prefix'], 'fetch');
    const flags = readFlags(body);
    if (body.ids !== undefined && body.ids !== null) return { selector: { ids: idList(body.ids, 'ids') }, flags };
    if (typeof body.prefix === 'string') return { selector: { prefix: body.prefix }, flags };
  }
  throw new AppError('invalid_request', 'fetch takes {"ids": [...]} or {"prefix": "..."} (or an array of ids)');
}

/** One id, `[ids]`, `{ids}`, `{prefix}` or `{filter}`. */
export function parseDeleteBody(body: unknown): DeleteSelector {
  if (isId(body)) return { ids: [String(body)] };
  if (Array.isArray(body)) return { ids: idList(body, 'delete') };
  if (isObject(body)) {
    onlyOne(body, ['ids', 'prefix', 'filter'], 'delete');
    if (body.ids !== undefined && body.ids !== null) return { ids: idList(body.ids, 'ids') };
    if (typeof body.prefix === 'string' && body.prefix !== '') return { prefix: body.prefix };
    if (typeof body.filter === 'string' && body.filter.trim() !== '') return { filter: body.filter };
  }
  throw new AppError(
    'invalid_request',
    'delete takes {"ids": [...]}, {"prefix": "..."} (non-empty) or {"filter": "..."} (or an id or array of ids)',
  );
}

export function readFlags(body: Record<string, unknown>): ReadFlags {
  return { includeData: flag(body, 'includeData'), includeMetadata: flag(body, 'includeMetadata') };
}
