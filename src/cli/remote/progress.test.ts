import { describe, expect, test } from 'vitest';
import { createProgress, describeProgress, formatDuration, progressBar } from './progress.js';

describe('describeProgress', () => {
  test('count, rate, share and ETA', () => {
    expect(describeProgress({ done: 2500, fraction: 0.25, elapsedMs: 2000 })).toBe(
      '2,500 docs · 1,250 docs/s · 25% · ETA 0:06',
    );
  });

  test('no rate before anything is done, no share or ETA without a total', () => {
    expect(describeProgress({ done: 0, elapsedMs: 0 })).toBe('0 docs');
    expect(describeProgress({ done: 10, elapsedMs: 1000 })).toBe('10 docs · 10 docs/s');
    expect(describeProgress({ done: 10, fraction: 1, elapsedMs: 1000 })).toBe('10 docs · 10 docs/s · 100%');
  });

  test('durations and bars', () => {
    expect(formatDuration(59.6)).toBe('1:00');
    expect(formatDuration(3725)).toBe('1:02:05');
    expect(progressBar(0.5, 10)).toBe('[#####-----] ');
    expect(progressBar(undefined)).toBe('');
  });
});

/** Carriage return and "erase line": how the bar is redrawn in place. */
const CLEAR = '\r\u001b[2K';

/** A fake stderr that records writes; `isTTY` as given. */
function stream(isTTY: boolean, columns = 200) {
  const writes: string[] = [];
  return { writes, target: Object.assign({ write: (text: string) => writes.push(text) > 0 }, { isTTY, columns }) };
}

describe('createProgress', () => {
  test('without a terminal: plain lines, at most one a second', () => {
    let now = 0;
    const { writes, target } = stream(false);
    const progress = createProgress({ verb: 'imported', stream: target as never, enabled: true, now: () => now });
    now = 500;
    progress.update(100);
    now = 900;
    progress.update(200);
    now = 1600;
    progress.update(300);
    progress.finish();
    expect(writes).toEqual([
      'searchplane: imported 100 docs · 200 docs/s\n',
      'searchplane: imported 300 docs · 188 docs/s\n',
    ]);
  });

  test('on a terminal: a bar redrawn in place, notes above it, cleared at the end', () => {
    let now = 0;
    const { writes, target } = stream(true);
    const progress = createProgress({ verb: 'imported', stream: target as never, enabled: true, now: () => now });
    now = 1000;
    progress.update(50, 0.5);
    progress.note('429 too many requests: slow down; retrying in 0:01');
    progress.finish();
    expect(writes[0]).toBe(`${CLEAR}[############------------] 50 docs · 50 docs/s · 50% · ETA 0:01`);
    expect(writes.slice(1, 3)).toEqual([
      '\r\u001b[2K',
      'searchplane: 429 too many requests: slow down; retrying in 0:01\n',
    ]);
    expect(writes[3].startsWith(`${CLEAR}[`)).toBe(true);
    expect(writes.at(-1)).toBe('\r\u001b[2K');
  });

  test('on a narrow terminal the bar goes first, then the line is cut to fit', () => {
    let now = 0;
    const { writes, target } = stream(true, 41);
    const progress = createProgress({ verb: 'imported', stream: target as never, enabled: true, now: () => now });
    now = 1000;
    progress.update(50, 0.5);
    expect(writes[0]).toBe(`${CLEAR}50 docs · 50 docs/s · 50% · ETA 0:01`);
    const { writes: tiny, target: tinyTarget } = stream(true, 11);
    createProgress({ verb: 'imported', stream: tinyTarget as never, enabled: true, now: () => now }).update(5000);
    expect(tiny[0]).toBe(`${CLEAR}5,000 docs`);
  });

  test('disabled: writes nothing', () => {
    const { writes, target } = stream(true);
    const progress = createProgress({ verb: 'imported', stream: target as never, enabled: false });
    progress.update(1);
    progress.note('x');
    progress.finish();
    expect(writes).toEqual([]);
  });
});
