import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { UsageError } from '../../cli-support.js';
import { type CsvMapping, csvDocuments } from './csv-documents.js';
import { type SourceDocument, toImportDocument } from './import-document.js';
import { JsonArrayParser } from './json-array-parser.js';
import { type ParsedValue, SourceError } from './source-error.js';

export const IMPORT_FORMATS = ['jsonl', 'json', 'csv'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportSourceOptions {
  /** Chosen by `--format`; otherwise from the file name, then from the first character. */
  format?: ImportFormat;
  csv: CsvMapping;
  /** What `-` reads; process.stdin unless a test hands in its own chunks. */
  stdin?: AsyncIterable<Buffer>;
}

/** A file (or stdin, `-`) read as a stream of documents. */
export interface ImportSource {
  name: string;
  /** The file's size, for the progress display; unknown for stdin. */
  totalBytes?: number;
  /** Bytes handed to the parser so far. */
  bytesRead(): number;
  documents(): AsyncGenerator<SourceDocument>;
}

/** The format a file name says: `.csv`, `.jsonl`/`.ndjson`; `.json` may be either JSON kind. */
export function formatFromName(file: string): ImportFormat | undefined {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  return undefined;
}

/** `[` starts a JSON array, `{` JSON Lines; anything else cannot be told apart from CSV safely. */
export function sniffFormat(text: string): ImportFormat | undefined {
  const first = text.trimStart()[0];
  if (first === '[') return 'json';
  if (first === '{') return 'jsonl';
  return undefined;
}

/** JSON Lines: one JSON value per line, blank lines skipped, each with its line number. */
async function* jsonLines(source: string, text: AsyncIterable<string>): AsyncGenerator<ParsedValue> {
  let line = 0;
  for await (const raw of createInterface({ input: Readable.from(text), crlfDelay: Number.POSITIVE_INFINITY })) {
    line++;
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new SourceError(source, line, `not valid JSON (${(error as Error).message})`);
    }
    yield { value, line };
  }
}

/** A JSON array, element by element (see {@link JsonArrayParser}). */
async function* jsonArray(source: string, text: AsyncIterable<string>): AsyncGenerator<ParsedValue> {
  const parser = new JsonArrayParser(source);
  for await (const chunk of text) yield* parser.push(chunk);
  yield* parser.end();
}

/** `bytes` as UTF-8 text, without a leading byte-order mark; `onRead` is told each chunk's size. */
async function* utf8Text(bytes: AsyncIterable<Buffer>, onRead: (size: number) => void): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let started = false;
  const withoutBom = (text: string): string => {
    if (started || text === '') return text;
    started = true;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  };
  for await (const chunk of bytes) {
    onRead(chunk.length);
    const text = withoutBom(decoder.write(chunk));
    if (text !== '') yield text;
  }
  const rest = withoutBom(decoder.end());
  if (rest !== '') yield rest;
}

/**
 * Opens `file` for import without reading it whole: chunks are decoded as UTF-8 (a leading
 * BOM dropped) and parsed as they arrive, and the next chunk is read only once the documents
 * of this one have been taken, so memory stays flat for JSONL, CSV and JSON arrays alike.
 */
export function openImportSource(file: string, options: ImportSourceOptions): ImportSource {
  const name = file === '-' ? 'stdin' : file;
  let totalBytes: number | undefined;
  if (file !== '-') {
    try {
      totalBytes = statSync(file).size;
    } catch (error) {
      throw new UsageError(
        `cannot read ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
      );
    }
  }
  let read = 0;
  async function* documents(): AsyncGenerator<SourceDocument> {
    const input = file === '-' ? (options.stdin ?? process.stdin) : createReadStream(file);
    const text = utf8Text(input, (size) => {
      read += size;
    });
    // The format from the option or the name, else from the first character that is not
    // whitespace, which a pipe may deliver after any number of reads.
    let head = '';
    let format = options.format ?? formatFromName(file);
    while (format === undefined && head.trimStart() === '') {
      const next = await text.next();
      if (next.done) break;
      head += next.value;
      format = sniffFormat(head);
    }
    if (format === undefined) {
      throw new UsageError(`cannot tell the format of ${name}: name it .jsonl, .json or .csv, or pass --format`);
    }
    const chunks = (async function* () {
      if (head !== '') yield head;
      yield* text;
    })();
    const values =
      format === 'csv'
        ? csvDocuments(name, chunks, options.csv)
        : format === 'json'
          ? jsonArray(name, chunks)
          : jsonLines(name, chunks);
    for await (const value of values) yield toImportDocument(name, value);
  }
  return { name, totalBytes, bytesRead: () => read, documents };
}
