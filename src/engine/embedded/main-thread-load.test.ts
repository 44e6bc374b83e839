import { afterEach, describe, expect, it } from 'vitest';
import { busyFor } from '../test-fixtures.js';
import { MainThreadLoad } from './main-thread-load.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('MainThreadLoad', () => {
  let load = new MainThreadLoad();
  afterEach(() => {
    for (let i = 0; i < 2; i++) load.detach();
    load = new MainThreadLoad();
  });

  it('raises the flag while the main thread is busy and lowers it when it idles', async () => {
    load.attach();
    expect(Atomics.load(load.flag, 0)).toBe(0);
    // Busy: synchronous work back to back, with only brief returns to the event loop for the sampler.
    for (let i = 0; i < 6; i++) {
      busyFor(90);
      await sleep(1);
    }
    expect(Atomics.load(load.flag, 0)).toBe(1);
    await sleep(350);
    expect(Atomics.load(load.flag, 0)).toBe(0);
  });

  it('stops sampling and clears the flag when the last user detaches', async () => {
    load.attach();
    load.attach();
    for (let i = 0; i < 4; i++) {
      busyFor(90);
      await sleep(1);
    }
    expect(Atomics.load(load.flag, 0)).toBe(1);
    load.detach();
    expect(Atomics.load(load.flag, 0)).toBe(1);
    load.detach();
    expect(Atomics.load(load.flag, 0)).toBe(0);
  });
});
