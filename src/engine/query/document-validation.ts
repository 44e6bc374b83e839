import { AppError } from '../../errors.js';
import type { DocumentInput, JsonObject } from '../contract.js';
import { type AnalyzedDocument, analyzeFields } from './analyzer.js';
import { FIELD_SEPARATOR, stringValues, textFields } from './text-tokens.js';

/** Per-document limits, enforced before anything is embedded or written. */
export const DOCUMENT_LIMITS = {
  idMaxLength: 256,
  textMaxLength: 4096,
  metadataMaxBytes: 48 * 1024,
} as const;

/** A validated document with its serialized parts and flattened text. */
export interface PreparedDocument {
  id: string;
  content: string;
  metadata: string | null;
  /** The text fields of `content`, in order (see textFields). */
  fields: string[];
  /** The fields joined by newlines: what gets embedded and reranked. */
  text: string;
  /** The fields analyzed for full-text search (and lexical embedders), once. */
  analysis: AnalyzedDocument;
}

/**
 * Validates a batch and returns one entry per distinct id (the last occurrence wins, as if the
 * upserts had been applied in order). Throws `invalid_request` for malformed input and
 * `document_too_large` for limit violations, naming the document id and the limit.
 */
export function prepareDocuments(docs: unknown): PreparedDocument[] {
  if (!Array.isArray(docs)) throw new AppError('invalid_request', 'documents must be an array');
  const byId = new Map<string, PreparedDocument>();
  docs.forEach((doc: Partial<DocumentInput> | null, position) => {
    const prepared = prepareDocument(doc, position);
    byId.delete(prepared.id); // keep the map in last-write order
    byId.set(prepared.id, prepared);
  });
  return [...byId.values()];
}

function prepareDocument(doc: Partial<DocumentInput> | null, position: number): PreparedDocument {
  if (!isPlainObject(doc)) throw invalid(`documents[${position}]`, 'must be an object');
  const { id, content, metadata } = doc;
  if (typeof id !== 'string' || id.length === 0)
    throw invalid(`documents[${position}].id`, 'must be a non-empty string');
  if (id.length > DOCUMENT_LIMITS.idMaxLength) {
    throw tooLarge(id, 'id', `id is longer than ${DOCUMENT_LIMITS.idMaxLength} characters`);
  }
  if (!isPlainObject(content)) throw invalid(`documents[${position}].content`, `must be an object (document '${id}')`);
  if (metadata !== undefined && metadata !== null && !isPlainObject(metadata)) {
    throw invalid(`documents[${position}].metadata`, `must be an object (document '${id}')`);
  }
  // The limit counts the string values, as it always has: indexing numbers and booleans too must
  // not refuse a document that was accepted before.
  const length = stringValues(content).join(FIELD_SEPARATOR).length;
  if (length > DOCUMENT_LIMITS.textMaxLength) {
    throw tooLarge(
      id,
      'content',
      `content text is ${length} characters; the limit is ${DOCUMENT_LIMITS.textMaxLength}`,
    );
  }
  const fields = textFields(content);
  const text = fields.join(FIELD_SEPARATOR);
  const metadataJson = isPlainObject(metadata) ? JSON.stringify(metadata) : null;
  const metadataBytes = metadataJson === null ? 0 : Buffer.byteLength(metadataJson);
  if (metadataBytes > DOCUMENT_LIMITS.metadataMaxBytes) {
    throw tooLarge(
      id,
      'metadata',
      `metadata is ${metadataBytes} bytes; the limit is ${DOCUMENT_LIMITS.metadataMaxBytes}`,
    );
  }
  return preparedDocument(id, JSON.stringify(content), metadataJson, fields, text);
}

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(field: string, problem: string): AppError {
  return new AppError('invalid_request', `${field} ${problem}`, { details: [{ field, message: problem }] });
}

function tooLarge(id: string, field: string, problem: string): AppError {
  return new AppError('document_too_large', `Document '${id.slice(0, 64)}': ${problem}`, {
    details: [{ field, message: problem }],
  });
}

/**
 * Whether a write that takes an index from `before` to `after` documents passes `maxVectorCount`
 * (-1 = unlimited); writes that do not grow the index always pass. Throws `vector_limit_exceeded`.
 */
export function checkVectorLimit(maxVectorCount: number, before: number, after: number): void {
  if (maxVectorCount >= 0 && after > maxVectorCount && after > before) {
    throw new AppError('vector_limit_exceeded', `This index is limited to ${maxVectorCount} documents`, {
      details: [{ field: 'documents', message: `the upsert would bring the index to ${after} documents` }],
    });
  }
}

/**
 * A stored document (content and metadata as JSON text) in the prepared form. Its analysis is
 * computed on first use only: a replica catching up applies many documents whose namespace has no
 * full-text index built yet, which then reads them from SQLite anyway.
 */
export function preparedFromStored(id: string, content: string, metadata: string | null): PreparedDocument {
  const fields = textFields(JSON.parse(content) as JsonObject);
  return preparedDocument(id, content, metadata, fields, fields.join(FIELD_SEPARATOR));
}

/**
 * The analysis is made on first use: a write whose indexing is deferred (embedded-index.ts) stores
 * the document without it, and the backlog reads the document back to analyse it.
 */
function preparedDocument(
  id: string,
  content: string,
  metadata: string | null,
  fields: string[],
  text: string,
): PreparedDocument {
  let analysis: AnalyzedDocument | undefined;
  return {
    id,
    content,
    metadata,
    fields,
    text,
    get analysis() {
      analysis ??= analyzeFields(fields);
      return analysis;
    },
  };
}
