import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../errors.js';

/**
 * The one gate every request's input passes before auth, schemas or services see it: JSON bodies
 * (parsed here), path parameters and the query string. It refuses what no part of the service can
 * store or process faithfully, with a 400 and a stable code, so that no such input can reach
 * PostgreSQL (which rejects NUL in text) or a recursive walk (which overflows on deep nesting):
 * - `invalid_characters`: a string (value or object key) holding NUL (U+0000) or an unpaired UTF-16
 *   surrogate (`"\ud800"`), which UTF-8 cannot encode;
 * - `nesting_too_deep`: arrays and objects nested deeper than {@link INPUT_LIMITS}.maxDepth;
 * - `invalid_json`: text that is not JSON, or JSON with `__proto__` / `constructor.prototype` keys.
 * Size is bounded before parsing by the body limit (SEARCHPLANE_BODY_LIMIT_BYTES).
 */
export const INPUT_LIMITS = {
  /** Levels of nested arrays and objects in a JSON body (the body itself is level 1). */
  maxDepth: 64,
} as const;

type Location = 'body' | 'params' | 'querystring';

declare module 'fastify' {
  interface FastifyRequest {
    /** Bytes of a JSON body sent without a Content-Length (chunked), counted as it is parsed. */
    chunkedBodyBytes: number;
  }
}

/** What is wrong with a piece of text, or undefined when every part of the service can take it. */
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains a NUL character (\\u0000)';
  if (!(text as string & { isWellFormed(): boolean }).isWellFormed()) return 'contains an unpaired UTF-16 surrogate';
  return undefined;
}

/** Whether `text` is safe to store and compare (see {@link textProblem}). */
export function isCleanText(text: string): boolean {
  return textProblem(text) === undefined;
}

interface Pending {
  value: unknown;
  depth: number;
  parent: Pending | undefined;
  key: string | number | undefined;
}

/**
 * Throws `invalid_characters` or `nesting_too_deep` for the first offending part of `value`
 * (iteratively, so a hostile body cannot exhaust the stack), naming its field.
 */
export function checkInput(value: unknown, location: Location): void {
  const stack: Pending[] = [{ value, depth: 0, parent: undefined, key: undefined }];
  while (stack.length > 0) {
    const current = stack.pop()!;
    const item = current.value;
    if (typeof item === 'string') {
      const problem = textProblem(item);
      if (problem) throw invalidCharacters(location, current, problem);
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    const depth = current.depth + 1;
    if (depth > INPUT_LIMITS.maxDepth) {
      throw new AppError(
        'nesting_too_deep',
        `The ${location} nests arrays and objects deeper than ${INPUT_LIMITS.maxDepth} levels`,
        { details: [{ field: fieldOf(location, current), message: `at most ${INPUT_LIMITS.maxDepth} levels` }] },
      );
    }
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push({ value: item[i], depth, parent: current, key: i });
      continue;
    }
    const keys = Object.keys(item);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      const entry = { value: (item as Record<string, unknown>)[key], depth, parent: current, key };
      const problem = textProblem(key);
      if (problem) throw invalidCharacters(location, entry, `has a key that ${problem}`);
      stack.push(entry);
    }
  }
}

function invalidCharacters(location: Location, at: Pending, problem: string): AppError {
  const field = fieldOf(location, at);
  return new AppError('invalid_characters', `${field} ${problem}; text must be valid Unicode without NUL`, {
    details: [{ field, message: problem }],
  });
}

/** `body.documents[0].content.title`-style name of where a value sits (built only on failure). */
function fieldOf(location: Location, at: Pending): string {
  const parts: string[] = [];
  for (let node: Pending | undefined = at; node?.parent; node = node.parent) {
    const key = node.key!;
    parts.push(typeof key === 'number' ? `[${key}]` : `.${printable(key)}`);
  }
  return location + parts.reverse().join('');
}

/** A key as it may appear in a message: control characters and lone surrogates escaped, cut short. */
function printable(key: string): string {
  const short = key.length > 64 ? `${key.slice(0, 64)}…` : key;
  return short.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what gets escaped
    /[\u0000-\u001f]|[\ud800-\udfff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * Installs the JSON body parser with the checks of every body. Register it on the root instance
 * before any route plugin; {@link checkRequestInput} covers paths and query strings.
 */
async function inputGuardPlugin(app: FastifyInstance): Promise<void> {
  // JSON is the only body format; an empty body with a JSON content type means "no body"
  // (clients send the header on every call, including body-less POSTs).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.decorateRequest('chunkedBodyBytes', 0);
  // Read as bytes: as a string, bytes that are not UTF-8 would become U+FFFD unseen, and a body
  // that is not what it says would be stored garbled instead of refused.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (request.headers['content-length'] === undefined) request.chunkedBodyBytes = bytes.length;
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1].toLowerCase();
    if (!isUtf8(bytes)) {
      return done(
        looksLikeUtf8(charset, bytes)
          ? new AppError('invalid_characters', 'The request body is not valid UTF-8 (JSON text must be)')
          : new AppError('unsupported_media_type', 'Send the request body as UTF-8 JSON'),
        undefined,
      );
    }
    const text = bytes.toString('utf8');
    if (!readsAsUtf8(charset, text)) {
      return done(new AppError('unsupported_media_type', 'Send the request body as UTF-8 JSON'), undefined);
    }
    if (text.trim().length === 0) return done(null, undefined);
    parseJson(request, text, (error, value) => {
      if (error) return done(jsonError(error), undefined);
      try {
        checkInput(value, 'body');
      } catch (problem) {
        return done(problem as Error, undefined);
      }
      done(null, value);
    });
  });
}

/** A charset label that says UTF-8, or none (JSON's default). */
function labelledUtf8(charset: string | undefined): charset is 'utf-8' | 'utf8' | undefined {
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

/**
 * Whether a body that is not valid UTF-8 was meant to be: labelled so (or not at all), without the
 * NUL bytes or byte-order mark of UTF-16/32. Such a body has bytes no UTF-8 text holds (400); any
 * other is in another encoding (415).
 */
function looksLikeUtf8(charset: string | undefined, bytes: Buffer): boolean {
  if (!labelledUtf8(charset)) return false;
  const bom =
    bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
  return !bom && !bytes.includes(0);
}

/**
 * Whether a body (with its charset label, if any) means what it says when read as UTF-8, as JSON
 * is (RFC 8259). A label of an ASCII-compatible charset (latin1, windows-1252...) is harmless on
 * ASCII text, which those spell alike; on any other text it would be stored garbled. UTF-16 and
 * UTF-32 spell even ASCII with NUL bytes, which JSON text never holds raw: that is how such a body
 * shows without a label.
 */
function readsAsUtf8(charset: string | undefined, text: string): boolean {
  if (text.includes('\u0000')) return false;
  if (labelledUtf8(charset)) return true;
  if (/^(utf-?(16|32)|ucs-?[24])/.test(charset)) return text.length === 0;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range is what is allowed
  return !/[^\u0000-\u007f]/.test(text);
}

/**
 * The checks of a request's path parameters and query string. The app runs it from its first
 * onRequest hook, so it comes before authentication.
 */
export function checkRequestInput(request: FastifyRequest): void {
  checkInput(request.params, 'params');
  checkInput(request.query, 'querystring');
}

/** Every parse failure as `invalid_json`; the parser's own message may quote the body, so it is not passed on. */
function jsonError(error: Error): AppError {
  const forbidden = /prototype/i.test(error.message);
  return new AppError(
    'invalid_json',
    forbidden
      ? 'The request body is not accepted: "__proto__" and "constructor.prototype" keys are not allowed'
      : 'The request body is not valid JSON',
  );
}

export const inputGuard = fp(inputGuardPlugin, { name: 'searchplane-input-guard' });
