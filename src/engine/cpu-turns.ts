/**
 * Takes turns on the main thread for CPU-heavy sections of searches. A section runs at once when
 * no other section runs or waits; otherwise it queues. A finished section hands over (to the next
 * in line, or to whoever comes) only after a macrotask hop (setImmediate), so the event loop polls
 * for I/O between any two sections. Writes and other requests never queue here: they wait at most
 * for the one section running, instead of behind every search that arrived before them.
 */
export class CpuTurns {
  private readonly waiting: (() => void)[] = [];
  private running = false;

  async run<T>(section: () => T): Promise<Awaited<T>> {
    if (this.running || this.waiting.length > 0) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running = true;
    try {
      return await section();
    } finally {
      // Held through a macrotask hop even when nobody waits: sections that become ready in the
      // same event-loop pass (several graph replies arriving together) would otherwise run back
      // to back there, ahead of every socket the poll phase has not reached yet (a write).
      setImmediate(() => {
        this.running = false;
        const next = this.waiting.shift();
        if (next) {
          this.running = true; // reserved for `next`, so a newcomer cannot slip in first
          next();
        }
      });
    }
  }
}
