import { finished } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { type ParsedValue, SourceError } from './source-error.js';

/** Which CSV columns make a document. */
export interface CsvMapping {
  /** The column holding each document's id (default `id`). */
  idColumn: string;
  /** Columns that become `content` (searched); default: every column but the id. */
  contentColumns?: string[];
}

/** One CSV record and the line it starts on (1-based; a quoted field may span lines). */
interface CsvRow {
  fields: string[];
  line: number;
}

/**
 * RFC 4180 CSV as csv-parse reads it: fields in double quotes may hold commas, line breaks and
 * `""`; a quote inside an unquoted field, or text after a closing quote, is kept as text; `\n`,
 * `\r\n` and `\r` all end a record; blank lines are skipped. Records come with the line they
 * start on, counted from the raw text csv-parse hands back with each one.
 */
async function* csvRows(source: string, text: AsyncIterable<string>): AsyncGenerator<CsvRow> {
  // Records are taken from on_record as csv-parse reads them, rather than from the stream, which
  // drops the records it still buffers when it fails (and it fails at the end of the file, for a
  // quote never closed).
  const parsed: { record: string[]; raw: string }[] = [];
  const parser = parse({
    raw: true,
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
    record_delimiter: ['\r\n', '\n', '\r'],
    // With `raw`, each record comes as { record, raw }.
    on_record: (record) => {
      parsed.push(record as unknown as { record: string[]; raw: string });
      return null;
    },
  });
  const outcome = finished(parser.resume()).then(
    () => undefined,
    (error: Error & { code?: string; raw?: string }) => error,
  );
  let lines = 0;
  const rows = function* (): Generator<CsvRow> {
    for (const { record, raw } of parsed.splice(0)) {
      yield { fields: record, line: lines + leadingLineBreaks(raw) + 1 };
      lines += lineBreaks(raw);
    }
  };
  for await (const chunk of text) {
    if (parser.destroyed) break;
    parser.write(chunk);
    yield* rows();
  }
  parser.end();
  const failure = await outcome;
  yield* rows();
  if (failure?.code === 'CSV_QUOTE_NOT_CLOSED') {
    throw new SourceError(source, lines + leadingLineBreaks(failure.raw ?? '') + 1, 'a quoted field is never closed');
  }
  if (failure) throw failure;
}

/** Line breaks before a record's first character: the blank lines skipped before it. */
function leadingLineBreaks(raw: string): number {
  return lineBreaks(/^[\r\n]*/.exec(raw)?.[0] ?? '');
}

function lineBreaks(text: string): number {
  return text.match(/\r\n|\n|\r/g)?.length ?? 0;
}

/**
 * CSV rows as documents. The first row names the columns. Each row becomes
 * `{id, content, metadata}`: `content` holds the content columns as strings; every other
 * column goes to `metadata`, where `true`/`false` become booleans, numbers written the way
 * JSON writes them (`1977`, `4.5`, not `01234`) become numbers, and empty cells are left out.
 */
export async function* csvDocuments(
  source: string,
  text: AsyncIterable<string>,
  mapping: CsvMapping,
): AsyncGenerator<ParsedValue> {
  const reader = new CsvDocumentReader(source, mapping);
  for await (const row of csvRows(source, text)) yield* reader.toDocument(row);
}

class CsvDocumentReader {
  private header?: { columns: string[]; id: number; content: number[]; metadata: number[] };

  constructor(
    private readonly source: string,
    private readonly mapping: CsvMapping,
  ) {}

  toDocument(row: CsvRow): ParsedValue[] {
    if (!this.header) {
      this.header = this.readHeader(row);
      return [];
    }
    const { columns, id, content, metadata } = this.header;
    if (row.fields.length !== columns.length) {
      throw new SourceError(
        this.source,
        row.line,
        `${row.fields.length} fields, but the header has ${columns.length} columns`,
      );
    }
    const documentId = row.fields[id];
    if (documentId === '') throw new SourceError(this.source, row.line, `empty id (column "${columns[id]}")`);
    const document: { id: string; content: Record<string, string>; metadata?: Record<string, unknown> } = {
      id: documentId,
      content: Object.fromEntries(content.map((column) => [columns[column], row.fields[column]])),
    };
    const metadataEntries = metadata
      .filter((column) => row.fields[column] !== '')
      .map((column) => [columns[column], metadataValue(row.fields[column])]);
    if (metadataEntries.length > 0) document.metadata = Object.fromEntries(metadataEntries);
    return [{ value: document, line: row.line }];
  }

  private readHeader(row: CsvRow) {
    const columns = row.fields.map((name) => name.trim());
    // Content and metadata are objects keyed by column name: a second "year" would silently
    // replace the first one's value.
    const repeated = columns.filter((name, index) => columns.indexOf(name) !== index);
    if (repeated.length > 0) {
      throw new SourceError(
        this.source,
        row.line,
        `the header names ${[...new Set(repeated)].map((name) => `"${name}"`).join(', ')} more than once; give each column its own name`,
      );
    }
    const position = (name: string, option: string) => {
      const index = columns.indexOf(name);
      if (index < 0) {
        throw new SourceError(
          this.source,
          row.line,
          `no column "${name}" (the columns are ${columns.map((column) => `"${column}"`).join(', ')}); choose one with ${option}`,
        );
      }
      return index;
    };
    const id = position(this.mapping.idColumn, '--id-column');
    const content = this.mapping.contentColumns
      ? this.mapping.contentColumns.map((name) => position(name, '--content-columns'))
      : columns.map((_name, index) => index).filter((index) => index !== id);
    if (content.length === 0) throw new SourceError(this.source, row.line, 'no content columns besides the id');
    const metadata = columns.map((_name, index) => index).filter((index) => index !== id && !content.includes(index));
    return { columns, id, content, metadata };
  }
}

/** A metadata cell as JSON: booleans and canonical numbers typed, everything else a string. */
export function metadataValue(text: string): string | number | boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  const number = Number(text);
  return Number.isFinite(number) && String(number) === text ? number : text;
}
