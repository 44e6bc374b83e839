/** A record of an import file that cannot be read: `<file>:<line>: <reason>`. */
export class SourceError extends Error {
  override readonly name = 'SourceError';

  constructor(
    readonly source: string,
    readonly line: number,
    readonly reason: string,
  ) {
    super(`${source}:${line}: ${reason}`);
  }
}

/** One value read from an import file, with the line it starts on (1-based). */
export interface ParsedValue {
  value: unknown;
  line: number;
}

/**
 * Parses a file piece by piece: `push` each decoded chunk, then `end`. Both yield values
 * lazily, so the values before a bad record are taken before its error is thrown.
 */
export interface ChunkParser<T> {
  push(text: string): Iterable<T>;
  end(): Iterable<T>;
}
