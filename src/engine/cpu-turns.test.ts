import { describe, expect, it } from 'vitest';
import { CpuTurns } from './cpu-turns.js';
import { busyFor } from './test-fixtures.js';

/** A section that keeps the thread busy for `ms`, then records its name. */
const busy =
  (log: string[], name: string, ms = 5) =>
  () => {
    busyFor(ms);
    log.push(name);
    return name;
  };

describe('CPU turns', () => {
  it('runs a section at once when no other runs or waits', async () => {
    const log: string[] = [];
    const result = new CpuTurns().run(busy(log, 'a', 0));
    expect(log).toEqual(['a']); // synchronously, no hop
    expect(await result).toBe('a');
  });

  it('holds the turn through a hop after a section, even when nobody waited for it', async () => {
    const turns = new CpuTurns();
    const log: string[] = [];
    await turns.run(busy(log, 'a', 0));
    // Still in the same event-loop pass: another search's section becomes ready (a graph reply)…
    const b = turns.run(busy(log, 'b', 0));
    // …and so does a write's socket, later in that pass: it must not wait behind 'b'.
    log.push('write');
    await b;
    expect(log).toEqual(['a', 'write', 'b']);
  });

  it('lets the event loop handle other work between queued sections', async () => {
    const turns = new CpuTurns();
    const log: string[] = [];
    const sections = Promise.all(['a', 'b', 'c'].map((name) => turns.run(busy(log, name))));
    // Work that arrives while the first section runs (an upsert's I/O callback, say).
    setImmediate(() => log.push('other work'));
    await sections;
    expect(log).toEqual(['a', 'other work', 'b', 'c']);
  });

  it('keeps order and releases its turn when a section throws', async () => {
    const turns = new CpuTurns();
    const log: string[] = [];
    const failing = turns.run(() => {
      throw new Error('boom');
    });
    const after = turns.run(busy(log, 'after', 0));
    await expect(failing).rejects.toThrow('boom');
    expect(await after).toBe('after');
  });
});
