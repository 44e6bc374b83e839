import { closeSync, openSync } from 'node:fs';
import { devNull } from 'node:os';
import { NO_DESCRIPTOR_LEFT } from '../../descriptor-refusal.js';

/** What `work` gave or threw. */
export type Outcome<T> = { value: T; error?: undefined } | { value?: undefined; error: unknown };

/**
 * Runs `work` while this process has no file descriptor left: every free one is held open on
 * /dev/null (the real thing, not a mock, so that native code and worker threads, which share the
 * descriptor table, see it too). They are given back before this returns, so the caller asserts
 * afterwards, when a failed expectation can read source files again.
 */
export async function withoutDescriptors<T>(work: () => Promise<T>): Promise<Outcome<T>> {
  const held: number[] = [];
  try {
    for (;;) held.push(openSync(devNull, 'r'));
  } catch (error) {
    if (!NO_DESCRIPTOR_LEFT.has((error as { code?: string }).code ?? '')) {
      for (const fd of held) closeSync(fd);
      throw error;
    }
  }
  try {
    return { value: await work() };
  } catch (error) {
    return { error };
  } finally {
    for (const fd of held) closeSync(fd);
  }
}
