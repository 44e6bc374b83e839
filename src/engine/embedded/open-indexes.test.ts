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

  it('counts closing indexes against the capacity: a burst over many indexes holds no more than it, or than the indexes in use', async () => {
    for (const [capacity, workers] of [
      [4, 4],
      [4, 8],
      [16, 4],
    ]) {
      let held = 0;
      let mostHeld = 0;
      const indexes = new OpenIndexes(
        capacity,
        async () => {
          mostHeld = Math.max(mostHeld, ++held);
          // A close far slower than a use, as a close that writes its files is.
          return { close: () => new Promise<void>((resolve) => setTimeout(() => resolve(void held--), 15)) };
        },
        () => {},
      );
      const ids = Array.from({ length: 60 }, (_, i) => `index-${i}`);
      let next = 0;
      const worker = async () => {
        while (next < ids.length) await indexes.use(ids[next++], async () => {});
      };
      await Promise.all(Array.from({ length: workers }, worker));
      await indexes.closeAll();
      expect(held).toBe(0);
      // Before closes counted, every one of the 60 was held at once.
      expect(mostHeld).toBeLessThanOrEqual(Math.max(capacity, workers));
    }
  });

  it('keeps a sixteenth of the slots free, so a new index need not wait for a close', async () => {
    const closes = new Map<string, () => void>();
    const opened: string[] = [];
    const indexes = new OpenIndexes(
      16,
      async (id) => {
        opened.push(id);
        return { close: () => new Promise<void>((resolve) => closes.set(id, resolve)) };
      },
      () => {},
    );
    for (let i = 0; i < 16; i++) await indexes.use(`index-${i}`, async () => {});
    // 16 slots held, the least recently used one closing (15 kept open).
    expect([...closes.keys()]).toEqual(['index-0']);
    closes.get('index-0')!();
    await new Promise((resolve) => setTimeout(resolve, 1));
    // A slot is free: the next new index opens at once, while the next close has only begun.
    await indexes.use('index-16', async () => {});
    expect(opened.at(-1)).toBe('index-16');
    expect([...closes.keys()]).toEqual(['index-0', 'index-1']);

    // No slot free: the next one waits for that close, first come first served.
    const waiting = indexes.use('index-17', async () => {});
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(opened.at(-1)).toBe('index-16');
    closes.get('index-1')!();
    await waiting;
    expect(opened.at(-1)).toBe('index-17');
  });

  it('does not open an index dropped while it waited for a slot', async () => {
    const closes: (() => void)[] = [];
    const opened: string[] = [];
    const indexes = new OpenIndexes(
      1,
      async (id) => {
        opened.push(id);
        return { close: () => new Promise<void>((resolve) => closes.push(resolve)) };
      },
      () => {},
    );
    await indexes.use('a', async () => {});
    const waiting = indexes.use('b', async () => 'written');
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(closes).toHaveLength(1); // a is closing; b waits for its slot
    const dropping = indexes.drop('b', async () => {});
    closes[0]();
    expect((await rejection(waiting)).code).toBe('index_not_found');
    await dropping;
    expect(opened).toEqual(['a']);
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

  it('opens a new index over the capacity when the close it waits for does not end', async () => {
    const opened: string[] = [];
    const indexes = new OpenIndexes(
      1,
      async (id) => {
        opened.push(id);
        // a's close never ends (its indexing waits on a stuck embedder, say).
        return { close: () => (id === 'a' ? new Promise<void>(() => {}) : Promise.resolve()) };
      },
      () => {},
      20,
    );
    await indexes.use('a', async () => {});
    await indexes.use('b', async () => {}); // waits 20 ms for a's slot, then opens anyway
    expect(opened).toEqual(['a', 'b']);
  });

  it('keeps its books through random uses, failures, drops and closes', async () => {
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    for (let seed = 1; seed <= 30; seed++) {
      let state = seed;
      const random = () => {
        state = (state * 1103515245 + 12345) & 0x7fffffff;
        return state / 0x7fffffff;
      };
      const capacity = [1, 2, 3, 4, 8][Math.floor(random() * 5)];
      type Fake = { id: string; users: number; closes: number; close(): Promise<void> };
      const made: Fake[] = [];
      let inUseAtClose = 0;
      let chaos = true;
      const indexes = new OpenIndexes<Fake>(
        capacity,
        async (id) => {
          if (random() < 0.3) await pause(Math.floor(random() * 3));
          if (chaos && random() < 0.1) throw new Error('open failed');
          const index: Fake = {
            id,
            users: 0,
            closes: 0,
            async close() {
              index.closes++;
              if (index.users > 0) inUseAtClose++;
              if (random() < 0.7) await pause(Math.floor(random() * 5));
              if (random() < 0.15) throw new Error('close failed');
            },
          };
          made.push(index);
          return index;
        },
        () => {},
      );
      const ids = Array.from({ length: 3 + Math.floor(random() * 8) }, (_, i) => `index-${i}`);
      const pending: Promise<unknown>[] = [];
      let dropped = 0;
      for (let step = 0; step < 200; step++) {
        const dice = random();
        if (dice < 0.8) {
          const duration = Math.floor(random() * 4);
          const work = async (index: Fake) => {
            index.users++;
            try {
              if (duration > 0) await pause(duration);
              if (random() < 0.1) throw new Error('work failed');
            } finally {
              index.users--;
            }
          };
          pending.push(indexes.use(ids[Math.floor(random() * ids.length)], work).catch(() => {}));
        } else if (dice < 0.9) {
          const k = Math.floor(random() * ids.length);
          pending.push(indexes.drop(ids[k], async () => {}));
          ids[k] = `new-${dropped++}`;
        } else if (dice < 0.92) {
          pending.push(indexes.closeAll());
        } else {
          await pause(Math.floor(random() * 3));
        }
      }
      await Promise.all(pending);
      await indexes.closeAll();
      chaos = false;
      expect(made.filter((index) => index.closes !== 1)).toEqual([]);
      expect(inUseAtClose).toBe(0);
      expect(indexes.size).toBe(0);
      // Every slot came back: a new index opens at once.
      expect(await indexes.use('after', async (index) => index.id)).toBe('after');
    }
  });

  it('frees the slot of a close whose failure listener throws too', async () => {
    const indexes = new OpenIndexes(
      1,
      async () => ({
        close: async () => {
          throw new Error('disk gone');
        },
      }),
      () => {
        throw new Error('listener broken');
      },
    );
    await indexes.use('a', async () => {});
    expect(await indexes.use('b', async () => 'opened')).toBe('opened');
    await indexes.closeAll();
  });
});
