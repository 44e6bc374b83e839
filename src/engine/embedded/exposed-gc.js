/**
 * V8's `gc()` without `--expose-gc` on the command line: the flag is read when a context is
 * created, so a new context carries the function. Plain JS so that the HNSW worker (which Node
 * loads from src/ under Vitest) and the TypeScript main thread share it.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** @returns {(() => void) | undefined} the function, or undefined if V8 refuses. */
export function exposedGc() {
  if (typeof globalThis.gc === 'function') return globalThis.gc;
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc');
    return typeof gc === 'function' ? gc : undefined;
  } catch {
    return undefined;
  }
}

/** The looked-up function of this thread (null: not looked up yet). */
let found = null;

/**
 * Runs one full collection of this thread's heap; does nothing where V8 refuses `gc()`. The flag is
 * set at the first call, not when this module loads.
 */
export function collectGarbage() {
  if (found === null) found = exposedGc();
  found?.();
}
