/**
 * Runs tasks one at a time, in call order (an async mutex): a task starts when the previous one
 * settled, whatever its outcome.
 */
export class SerialLock {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.waiting++;
    this.tail = result.then(
      () => this.waiting--,
      () => this.waiting--,
    );
    return result;
  }

  /** Whether no task is running or queued. */
  get idle(): boolean {
    return this.waiting === 0;
  }
}
