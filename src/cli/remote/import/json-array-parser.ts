import { type ChunkParser, type ParsedValue, SourceError } from './source-error.js';

type State = 'before' | 'array' | 'after';

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/**
 * A top-level JSON array, streamed: each element is cut out by tracking nesting and strings,
 * then parsed on its own, so only one element is held in memory at a time. Errors name the
 * line the offending element starts on, which is why this is not stream-json: its tokens carry no
 * positions in the text.
 */
export class JsonArrayParser implements ChunkParser<ParsedValue> {
  private state: State = 'before';
  private line = 1;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Text of the element being read, from earlier chunks. */
  private partial = '';
  private inElement = false;
  private elementLine = 0;
  /** After an element: the next token must be `,` or `]`. */
  private needSeparator = false;
  private afterComma = false;

  constructor(private readonly source: string) {}

  *push(text: string): Generator<ParsedValue> {
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const char = text[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (char === '\\') this.escaped = true;
        else if (char === '"') this.inString = false;
        if (char === '\n') this.line++;
        continue;
      }
      if (this.inElement) {
        if (char === '"') this.inString = true;
        else if (char === '{' || char === '[') this.depth++;
        else if ((char === ',' || char === ']') && this.depth === 0) {
          yield this.emit(text.slice(start, i));
          this.separator(char);
        } else if (char === '}' || char === ']') {
          this.depth--;
          if (this.depth === 0) yield this.emit(text.slice(start, i + 1));
        }
      } else if (!WHITESPACE.has(char)) {
        this.outside(char);
        if (this.inElement) {
          start = i;
          i--; // read the element's first character again, as part of the element
          continue;
        }
      }
      if (char === '\n') this.line++;
    }
    if (this.inElement) this.partial += text.slice(start);
  }

  end(): Iterable<ParsedValue> {
    if (this.state === 'before') this.fail('expected a JSON array, found an empty file');
    if (this.state !== 'after') this.fail('the JSON array is not closed (missing "]")');
    return [];
  }

  /** A character between elements: `[`, `,`, `]`, or the first character of an element. */
  private outside(char: string): void {
    if (this.state === 'before') {
      if (char !== '[') this.fail(`expected a JSON array starting with "[" (found "${char}")`);
      this.state = 'array';
      return;
    }
    if (this.state === 'after') this.fail('unexpected text after the end of the JSON array');
    if (char === ',' || char === ']') {
      if (char === ',' && !this.needSeparator) this.fail('unexpected ","');
      if (char === ']' && this.afterComma) this.fail('a trailing "," before "]"');
      this.separator(char);
      return;
    }
    if (this.needSeparator) this.fail('expected "," or "]" between array elements');
    this.inElement = true;
    this.elementLine = this.line;
    this.partial = '';
  }

  private separator(char: string): void {
    this.needSeparator = false;
    this.afterComma = char === ',';
    if (char === ']') this.state = 'after';
  }

  private emit(tail: string): ParsedValue {
    const text = this.partial + tail;
    this.inElement = false;
    this.partial = '';
    this.needSeparator = true;
    this.afterComma = false;
    try {
      return { value: JSON.parse(text), line: this.elementLine };
    } catch (error) {
      throw new SourceError(
        this.source,
        this.elementLine,
        `array element is not valid JSON (${(error as Error).message})`,
      );
    }
  }

  private fail(reason: string): never {
    throw new SourceError(this.source, this.line, reason);
  }
}
