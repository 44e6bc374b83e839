import { describe, expect, it } from 'vitest';
import { rejection } from '../test-fixtures.js';
import { OpenIndexes } from './open-indexes.js';

/** A fake index that records its lifecycle. */
function fakes() {
  const log: string[] = [];
  let serial = 0;
  const open = async (id: string) => {
    const name = `${id}#${++serial}`;
    log.push(`open ${name}`);
    return {
      name,
      close: async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        log.push(`close ${name}`);
      },
    };
  };
  return { log, open };
}

describe('open indexes (LRU)', () => {
  it('keeps at most `capacity` idle indexes open, closing the least recently used', async () => {
    const { log, open } = fakes();
    const indexes = new OpenIndexes(2, open, () => {});
    for (const id of ['a', 'b', 'a', 'c']) await indexes.use(id, async () => {});
    await indexes.use('a', async () => {}); // still open: no second open of a
    expect(indexes.size).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // c opens only once b's close ended: at capacity, a closing index still counts.
    expect(log).toEqual(['open a#1', 'open b#2', 'close b#2', 'open c#3']);
  });

  it('counts closing indexes against the capacity: a burst over many indexes never holds more than it', async () => {
    let held = 0;
    let mostHeld = 0;
    const indexes = new OpenIndexes(
      4,
      async () => {
        mostHeld = Math.max(mostHeld, ++held);
        // A close far slower than a use, as a close that writes its files is.
        return { close: () => new Promise<void>((resolve) => setTimeout(() => resolve(void held--), 15)) };
      },
      () => {},
    );
    const ids = Array.from({ length: 40 }, (_, i) => `index-${i}`);
    let next = 0;
    const worker = async () => {
      while (next < ids.length) await indexes.use(ids[next++], async () => {});
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    await indexes.closeAll();
    expect(held).toBe(0);
    expect(mostHeld).toBe(4);
  });

  it('never closes an index while it is used, and reopens only after the close finished', async () => {
    const { log, open } = fakes();
    const indexes = new OpenIndexes(1, open, () => {});
    let release!: () => void;
    const busy = indexes.use('a', () => new Promise<void>((resolve) => (release = resolve)));
    await indexes.use('b', async () => {});
    expect(log).toEqual(['open a#1', 'open b#2']); // over capacity while a is busy
    release();
    await busy;
    await indexes.use('a', async () => {}); // evicts b; a stayed open
    const again = indexes.use('b', async (index) => index.name);
    expect(await again).toBe('b#3');
    expect(log.indexOf('close b#2')).toBeLessThan(log.indexOf('open b#3'));
  });

  it('drops after the current users, then refuses the id', async () => {
    const { log, open } = fakes();
    const indexes = new OpenIndexes(4, open, () => {});
    let release!: () => void;
    const busy = indexes.use('a', () => new Promise<void>((resolve) => (release = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 1));
    let removed = false;
    const dropping = indexes.drop('a', async () => {
      removed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(removed).toBe(false);
    release();
    await Promise.all([busy, dropping]);
    expect(removed).toBe(true);
    expect(log).toEqual(['open a#1', 'close a#1']);
    expect((await rejection(indexes.use('a', async () => {}))).code).toBe('index_not_found');
  });

  it('reports close failures and keeps going', async () => {
    const failures: string[] = [];
    const indexes = new OpenIndexes(
      0,
      async () => ({
        close: async () => {
          throw new Error('disk gone');
        },
      }),
      (id, error) => failures.push(`${id}: ${(error as Error).message}`),
    );
    await indexes.use('a', async () => {});
    await indexes.closeAll();
    expect(failures).toEqual(['a: disk gone']);
  });
});
