import { type ParsedValue, SourceError } from './source-error.js';

/** What the data plane's upsert takes: `{id, content, metadata?}`. */
export interface ImportDocument {
  id: string;
  content: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

/** A document read from a file, with the line it starts on. */
export interface SourceDocument {
  document: ImportDocument;
  line: number;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks the shape the server needs (a non-empty string id — a whole number up to 2^53-1 is
 * taken as its decimal text, any other number is refused —
 * an object `content`, an optional object `metadata`) so that a malformed file stops at its
 * first bad line instead of failing batch after batch on the server.
 */
export function toImportDocument(source: string, { value, line }: ParsedValue): SourceDocument {
  const fail = (reason: string): never => {
    throw new SourceError(
      source,
      line,
      `${reason}; each record is {"id": "...", "content": {...}, "metadata"?: {...}}`,
    );
  };
  if (!isObject(value)) return fail('not a JSON object');
  const { id, content, metadata } = value;
  // JSON.parse has already rounded a number past 2^53 (9007199254740993 reads as ...992), so
  // two such ids could become one and a document would be silently replaced.
  if (typeof id === 'number' && !Number.isSafeInteger(id)) {
    return fail(
      `numeric "id" ${id} is not a whole number up to 2^53-1 and cannot be read exactly: write it as a string ("id": "...")`,
    );
  }
  const documentId = typeof id === 'number' ? String(id) : id;
  if (typeof documentId !== 'string' || documentId === '') return fail('"id" must be a non-empty string');
  if (!isObject(content)) return fail(`"content" of "${documentId}" must be an object`);
  if (metadata !== undefined && metadata !== null && !isObject(metadata)) {
    return fail(`"metadata" of "${documentId}" must be an object`);
  }
  const document: ImportDocument = { id: documentId, content };
  if (isObject(metadata)) document.metadata = metadata;
  return { document, line };
}
