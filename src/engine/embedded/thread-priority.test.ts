import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { expect, test } from 'vitest';
import { lowerThreadPriority } from './thread-priority.js';

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
