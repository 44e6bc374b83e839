/**
 * Lowers the calling thread's scheduling priority (Linux: the nice value of this thread alone,
 * addressed by its thread id through /proc/thread-self). Plain JS beside hnsw-worker.js, which
 * calls it at start.
 *
 * @param {number} nice 1 (slightly lower) to 19 (lowest)
 * @returns {boolean} whether the thread now runs at that priority (false where threads cannot be
 *   addressed this way, e.g. outside Linux)
 */
import { readlinkSync } from 'node:fs';
import os from 'node:os';

export function lowerThreadPriority(nice) {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    // The main thread's id is the process id: lowering it would slow the whole process.
    if (!Number.isInteger(tid) || tid === process.pid) return false;
    os.setPriority(tid, nice);
    return os.getPriority(tid) === nice;
  } catch {
    return false;
  }
}
