import { type ChunkParser, SourceError } from './source-error.js';

/**
 * Everything `parser` yields for `text` fed in pieces of `size` characters (1 = every character
 * its own chunk), then `end()`: chunk boundaries must not change the result.
 */
export function feed<T>(parser: ChunkParser<T>, text: string, size = text.length || 1): T[] {
  const values: T[] = [];
  for (let start = 0; start < text.length; start += size) values.push(...parser.push(text.slice(start, start + size)));
  values.push(...parser.end());
  return values;
}

/** The SourceError `run` throws (fails the test if it throws nothing or something else). */
export function sourceErrorOf(run: () => unknown): SourceError {
  try {
    run();
  } catch (error) {
    if (error instanceof SourceError) return error;
    throw error;
  }
  throw new Error('expected a SourceError');
}
