import { performance } from 'node:perf_hooks';

/** How often the main thread's event-loop utilization is sampled. */
const SAMPLE_MS = 100;
/** Above this utilization the main thread counts as busy (requests are waiting for CPU). */
const BUSY_UTILIZATION = 0.6;

/**
 * Whether the main thread is busy, published in shared memory for the HNSW workers: while it is,
 * they build graphs at a fraction of their speed (hnsw-worker.js pauses between slices), so
 * ingest and searches on the main thread are not slowed by background indexing competing for the
 * same cores. Searches sent to the workers are answered at once either way.
 *
 * One sampler per process (event-loop utilization is the process's main thread); it runs only
 * while a worker is attached and never keeps the process alive.
 */
export class MainThreadLoad {
  /** Int32 slot 0: 1 while the main thread is busy. */
  readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private timer: NodeJS.Timeout | undefined;
  private attached = 0;
  private last = performance.eventLoopUtilization();

  attach(): void {
    if (this.attached++ > 0) return;
    this.last = performance.eventLoopUtilization();
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
    this.timer.unref();
  }

  detach(): void {
    if (this.attached === 0 || --this.attached > 0) return;
    clearInterval(this.timer);
    this.timer = undefined;
    Atomics.store(this.flag, 0, 0);
  }

  private sample(): void {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, this.last);
    this.last = now;
    Atomics.store(this.flag, 0, utilization > BUSY_UTILIZATION ? 1 : 0);
  }
}

export const mainThreadLoad = new MainThreadLoad();
