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

/** `text` as a stream of pieces of `size` characters, as a file or pipe may deliver it. */
export async function* pieces(text: string, size = text.length || 1): AsyncGenerator<string> {
  for (let start = 0; start < text.length; start += size) yield text.slice(start, start + size);
}

/** Every value of `values`, or the SourceError it ends with (with the values before it). */
export async function collect<T>(values: AsyncIterable<T>): Promise<{ values: T[]; error?: SourceError }> {
  const seen: T[] = [];
  try {
    for await (const value of values) seen.push(value);
  } catch (error) {
    if (error instanceof SourceError) return { values: seen, error };
    throw error;
  }
  return { values: seen };
}
