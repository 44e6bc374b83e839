import { type ChunkParser, SourceError } from './source-error.js';

/** One CSV record and the line it starts on (1-based; a quoted field may span lines). */
export interface CsvRow {
  fields: string[];
  line: number;
}

type State = 'fieldStart' | 'unquoted' | 'quoted' | 'quoteInQuoted';

/**
 * CSV as RFC 4180 writes it, streamed: `,` between fields, `\n`, `\r\n` or `\r` between records,
 * fields in double quotes may hold commas, newlines and `""` (one quote). A quote inside an
 * unquoted field is kept as text; text after a closing quote, or a quote left open at the end
 * of the file, is a {@link SourceError} naming the line. Blank lines are skipped.
 */
export class CsvParser implements ChunkParser<CsvRow> {
  private state: State = 'fieldStart';
  private field = '';
  private fields: string[] = [];
  private line = 1;
  private rowLine = 1;
  /** A `\r` ended the last record: a `\n` right after it belongs to the same line break. */
  private afterCarriageReturn = false;

  constructor(private readonly source: string) {}

  *push(text: string): Generator<CsvRow> {
    for (const char of text) {
      if (this.afterCarriageReturn) {
        this.afterCarriageReturn = false;
        if (char === '\n') continue;
      }
      const row = this.read(char);
      if (row) yield row;
    }
  }

  end(): Iterable<CsvRow> {
    if (this.state === 'quoted') throw new SourceError(this.source, this.rowLine, 'a quoted field is never closed');
    return this.state !== 'fieldStart' || this.fields.length > 0 ? [this.endRecord()] : [];
  }

  /** Takes one character; returns the record it completes, if any. */
  private read(char: string): CsvRow | undefined {
    switch (this.state) {
      case 'quoted':
        if (char === '"') this.state = 'quoteInQuoted';
        else {
          if (char === '\n') this.line++;
          this.field += char;
        }
        return undefined;
      case 'quoteInQuoted':
        if (char === '"') {
          this.field += '"';
          this.state = 'quoted';
          return undefined;
        }
        if (char !== ',' && char !== '\n' && char !== '\r') {
          throw new SourceError(this.source, this.line, `unexpected "${char}" after a closing quote`);
        }
        break;
      case 'fieldStart':
        if (char === '"') {
          this.state = 'quoted';
          return undefined;
        }
        break;
    }
    if (char === ',') {
      this.endField();
      return undefined;
    }
    if (char === '\n' || char === '\r') {
      const row = this.state !== 'fieldStart' || this.fields.length > 0 ? this.endRecord() : undefined;
      this.afterCarriageReturn = char === '\r';
      this.line++;
      this.rowLine = this.line;
      return row;
    }
    this.field += char;
    this.state = 'unquoted';
    return undefined;
  }

  private endField(): void {
    this.fields.push(this.field);
    this.field = '';
    this.state = 'fieldStart';
  }

  private endRecord(): CsvRow {
    this.endField();
    const row = { fields: this.fields, line: this.rowLine };
    this.fields = [];
    return row;
  }
}
