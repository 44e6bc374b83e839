/**
 * Lowers the calling thread's scheduling priority (Linux: the nice value of this thread alone,
 * addressed by its thread id through /proc/thread-self). Plain JS beside hnsw-worker.js, which
 * calls it at start.
 *
 * @param {number} nice 1 (slightly lower) to 19 (lowest)
 * @returns {boolean} whether the thread now runs at that priority (false where threads cannot be
 *   addressed this way, e.g. outside Linux)
 */
import { readFileSync, readlinkSync } from 'node:fs';
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

/** Where cgroup v2 and v1 publish a CPU quota. */
export const CPU_QUOTA_FILES = { v2: '/sys/fs/cgroup/cpu.max', v1: '/sys/fs/cgroup/cpu/cpu.cfs_quota_us' };

/**
 * Whether a lower priority is enough to keep background threads out of the main thread's way. Not
 * with one CPU (a low-priority thread's work that requests wait for, such as a graph search, would
 * queue behind a busy main thread), nor under a CPU quota (`docker --cpus`, Kubernetes limits): a
 * low-priority thread on another core spends the quota, and then the whole process is throttled.
 */
export function lowerPrioritySuffices(cpus = os.availableParallelism(), files = CPU_QUOTA_FILES) {
  return cpus >= 2 && !cpuQuota(files);
}

function cpuQuota(files) {
  const v2 = readOptional(files.v2); // "max 100000" or "<quota> <period>"
  if (v2 !== undefined && v2.split(/\s+/)[0] !== 'max') return true;
  const v1 = readOptional(files.v1); // -1 without a quota
  return v1 !== undefined && Number(v1) > 0;
}

function readOptional(file) {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}
