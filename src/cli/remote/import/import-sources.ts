import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { UsageError } from '../../cli-support.js';
import { CsvDocuments, type CsvMapping } from './csv-documents.js';
import { type SourceDocument, toImportDocument } from './import-document.js';
import { JsonArrayParser } from './json-array-parser.js';
import { JsonLinesParser } from './jsonl-parser.js';
import type { ChunkParser, ParsedValue } from './source-error.js';

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

function parserFor(format: ImportFormat, name: string, csv: CsvMapping): ChunkParser<ParsedValue> {
  if (format === 'csv') return new CsvDocuments(name, csv);
  return format === 'json' ? new JsonArrayParser(name) : new JsonLinesParser(name);
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
    const decoder = new StringDecoder('utf8');
    let parser: ChunkParser<ParsedValue> | undefined;
    let bomChecked = false;
    // A pipe may deliver one byte at a time: the BOM check waits for the first decoded
    // character, and sniffing the format for the first non-whitespace one.
    let head = '';
    const take = (text: string): string => {
      if (!bomChecked && text !== '') {
        bomChecked = true;
        if (text.charCodeAt(0) === 0xfeff) return text.slice(1);
      }
      return text;
    };
    const known = options.format ?? formatFromName(file);
    for await (const chunk of input) {
      read += chunk.length;
      let text = take(decoder.write(chunk));
      if (!parser) {
        head += text;
        if (known === undefined && head.trimStart() === '') continue;
        parser = pickParser(head);
        text = head;
        head = '';
      }
      for (const value of parser.push(text)) yield toImportDocument(name, value);
    }
    const rest = head + take(decoder.end());
    parser ??= pickParser(rest);
    for (const value of [...parser.push(rest), ...parser.end()]) yield toImportDocument(name, value);
  }
  const pickParser = (firstText: string) => {
    const format = options.format ?? formatFromName(file) ?? sniffFormat(firstText);
    if (!format) {
      throw new UsageError(`cannot tell the format of ${name}: name it .jsonl, .json or .csv, or pass --format`);
    }
    return parserFor(format, name, options.csv);
  };
  return { name, totalBytes, bytesRead: () => read, documents };
}
