import { type ChunkParser, type ParsedValue, SourceError } from './source-error.js';

/**
 * JSON Lines, streamed: one JSON value per line (`\n` or `\r\n`), blank lines skipped. A line
 * that is not JSON is a {@link SourceError} naming its line number.
 */
export class JsonLinesParser implements ChunkParser<ParsedValue> {
  /**
   * Pieces of the unfinished line, joined once its end arrives: re-joining and re-splitting the
   * whole pending text on every chunk made a long line cost the square of its length.
   */
  private pending: string[] = [];
  private line = 0;

  constructor(private readonly source: string) {}

  push(text: string): Iterable<ParsedValue> {
    const lastBreak = text.lastIndexOf('\n');
    if (lastBreak < 0) {
      this.pending.push(text);
      return [];
    }
    const lines = text.slice(0, lastBreak).split('\n');
    lines[0] = this.pending.join('') + lines[0];
    this.pending = [text.slice(lastBreak + 1)];
    return this.parseLines(lines);
  }

  end(): Iterable<ParsedValue> {
    const rest = this.pending.join('');
    this.pending = [];
    return this.parseLines([rest]);
  }

  private *parseLines(lines: string[]): Generator<ParsedValue> {
    for (const raw of lines) {
      this.line++;
      const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        throw new SourceError(this.source, this.line, `not valid JSON (${(error as Error).message})`);
      }
      yield { value, line: this.line };
    }
  }
}
