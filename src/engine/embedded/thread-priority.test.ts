import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { expect, test } from 'vitest';
import { lowerPrioritySuffices, lowerThreadPriority } from './thread-priority.js';

const linux = process.platform === 'linux';

/** Nice value of each thread of this process, from /proc (field 19 of a thread's stat line). */
function threadNices(): Map<number, number> {
  const nices = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    nices.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return nices;
}

test.runIf(linux)('lowers the priority of the worker thread that asks, and of no other thread', async () => {
  const before = os.getPriority();
  const url = new URL('./thread-priority.js', import.meta.url).href;
  const worker = new Worker(
    `import(${JSON.stringify(url)}).then(async ({ lowerThreadPriority }) => {
       const { parentPort } = await import('node:worker_threads');
       const { readlinkSync } = await import('node:fs');
       const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
       parentPort.postMessage({ lowered: lowerThreadPriority(19), tid });
       parentPort.once('message', () => process.exit(0));
     });`,
    { eval: true },
  );
  try {
    const { lowered, tid } = await new Promise<{ lowered: boolean; tid: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    expect(lowered).toBe(true);
    const nices = threadNices();
    expect(nices.get(tid)).toBe(19);
    expect(nices.get(process.pid)).toBe(before);
    expect(os.getPriority()).toBe(before);
  } finally {
    worker.postMessage('exit');
    await worker.terminate();
  }
});

test('refuses to lower the main thread (that would slow the whole process)', () => {
  const before = os.getPriority();
  expect(lowerThreadPriority(19)).toBe(false);
  expect(os.getPriority()).toBe(before);
});

test('a lower priority suffices with 2 or more CPUs and no CPU quota (cgroup v2 or v1)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cpu-quota-'));
  try {
    const files = { v2: path.join(dir, 'cpu.max'), v1: path.join(dir, 'cpu.cfs_quota_us') };
    expect(lowerPrioritySuffices(2, files)).toBe(true); // neither file
    expect(lowerPrioritySuffices(1, files)).toBe(false);
    writeFileSync(files.v2, 'max 100000\n');
    expect(lowerPrioritySuffices(4, files)).toBe(true);
    writeFileSync(files.v2, '200000 100000\n'); // docker --cpus 2
    expect(lowerPrioritySuffices(4, files)).toBe(false);
    rmSync(files.v2);
    writeFileSync(files.v1, '-1\n');
    expect(lowerPrioritySuffices(4, files)).toBe(true);
    writeFileSync(files.v1, '150000\n');
    expect(lowerPrioritySuffices(4, files)).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
