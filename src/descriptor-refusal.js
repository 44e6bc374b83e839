/**
 * Whether this process is out of file descriptors, found the one way that cannot mislead: by asking
 * for one. Plain JS, so that the vector worker thread (hnsw-worker.js, also plain JS) loads it too.
 */
import { closeSync, openSync } from 'node:fs';
import { devNull } from 'node:os';

/** Error codes of a process (EMFILE) or a system (ENFILE) with no file descriptor left. */
const NO_DESCRIPTOR_LEFT = new Set(['EMFILE', 'ENFILE']);

/**
 * Whether `error` is a system call's refusal for want of a file descriptor.
 * @param {unknown} error
 * @returns {boolean}
 */
export function isOutOfDescriptors(error) {
  const code = /** @type {{ code?: unknown } | undefined} */ (error)?.code;
  return typeof code === 'string' && NO_DESCRIPTOR_LEFT.has(code);
}

/**
 * The code (EMFILE or ENFILE) with which a descriptor asked for now is refused; undefined when one
 * is given, or refused for another reason.
 * @returns {string | undefined}
 */
export function descriptorRefusal() {
  try {
    closeSync(openSync(devNull, 'r'));
    return undefined;
  } catch (error) {
    return isOutOfDescriptors(error) ? /** @type {{ code: string }} */ (error).code : undefined;
  }
}
