import { CsvParser, type CsvRow } from './csv-parser.js';
import { type ChunkParser, type ParsedValue, SourceError } from './source-error.js';

/** Which CSV columns make a document. */
export interface CsvMapping {
  /** The column holding each document's id (default `id`). */
  idColumn: string;
  /** Columns that become `content` (searched); default: every column but the id. */
  contentColumns?: string[];
}

/**
 * CSV rows as documents. The first row names the columns. Each row becomes
 * `{id, content, metadata}`: `content` holds the content columns as strings; every other
 * column goes to `metadata`, where `true`/`false` become booleans, numbers written the way
 * JSON writes them (`1977`, `4.5`, not `01234`) become numbers, and empty cells are left out.
 */
export class CsvDocuments implements ChunkParser<ParsedValue> {
  private readonly rows: CsvParser;
  private header?: { columns: string[]; id: number; content: number[]; metadata: number[] };

  constructor(
    private readonly source: string,
    private readonly mapping: CsvMapping,
  ) {
    this.rows = new CsvParser(source);
  }

  *push(text: string): Generator<ParsedValue> {
    for (const row of this.rows.push(text)) yield* this.toDocument(row);
  }

  *end(): Generator<ParsedValue> {
    for (const row of this.rows.end()) yield* this.toDocument(row);
  }

  private toDocument(row: CsvRow): ParsedValue[] {
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
