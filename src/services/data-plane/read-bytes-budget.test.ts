import { describe, expect, test } from 'vitest';
import { isAppError } from '../../errors.js';
import { INDEX_SHARE, ReadBytesBudget, SMALL_READ_BYTES } from './read-bytes-budget.js';

const SMALL = SMALL_READ_BYTES;

let indexes = 0;
/** A fresh index id: the tests of the node-wide rules give every read an index of its own. */
const anotherIndex = () => `index-${++indexes}`;

function refusal(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('ReadBytesBudget', () => {
  test('admits a large read while no other large read holds a share, then refuses large ones past the capacity', () => {
    const budget = new ReadBytesBudget(4 * SMALL);
    const big = budget.lease(anotherIndex());
    big.reserve(10 * SMALL);
    expect(budget.inFlight).toBe(10 * SMALL);
    const error = refusal(() => budget.lease(anotherIndex()).reserve(2 * SMALL));
    expect(isAppError(error) && error.code).toBe('service_unavailable');
    expect(isAppError(error) && error.headers).toEqual({ 'retry-after': '1' });
    expect(budget.inFlight).toBe(10 * SMALL);
  });

  test('small reads are admitted whatever others hold, up to SMALL_READ_BYTES per read', () => {
    const budget = new ReadBytesBudget(4 * SMALL);
    budget.lease(anotherIndex()).reserve(10 * SMALL);
    const small = budget.lease(anotherIndex());
    small.reserve(SMALL / 2);
    small.reserve(SMALL / 2);
    expect(small.holding).toBe(SMALL);
    expect(refusal(() => small.reserve(1))).toBeDefined();
    expect(small.holding).toBe(SMALL);
  });

  test('small reads in flight do not keep a large read out (no starvation on a busy node)', () => {
    const budget = new ReadBytesBudget(4 * SMALL);
    for (let i = 0; i < 6; i++) budget.lease(anotherIndex()).reserve(SMALL);
    const large = budget.lease(anotherIndex());
    large.reserve(10 * SMALL);
    expect(large.holding).toBe(10 * SMALL);
    // A second large read now waits for the first.
    expect(refusal(() => budget.lease(anotherIndex()).reserve(2 * SMALL))).toBeDefined();
    large.release();
    const next = budget.lease(anotherIndex());
    next.reserve(2 * SMALL);
    expect(budget.inFlight).toBe(8 * SMALL);
  });

  test("a read's own share does not count against it; a release returns exactly that share, once", () => {
    const budget = new ReadBytesBudget(4 * SMALL);
    const a = budget.lease(anotherIndex());
    a.reserve(3 * SMALL);
    a.reserve(3 * SMALL); // a second pass over rows, with nothing else held
    expect(a.holding).toBe(6 * SMALL);
    const b = budget.lease(anotherIndex());
    expect(refusal(() => b.reserve(2 * SMALL))).toBeDefined();
    a.release();
    expect(budget.inFlight).toBe(0);
    a.release();
    expect(budget.inFlight).toBe(0);
    b.reserve(2 * SMALL);
    expect(budget.inFlight).toBe(2 * SMALL);
    // A read that grows from small to large counts as large from then on.
    const growing = budget.lease(anotherIndex());
    growing.reserve(SMALL / 2);
    expect(refusal(() => growing.reserve(3 * SMALL))).toBeDefined();
    expect(growing.holding).toBe(SMALL / 2);
  });

  test('after its release (the client is gone) a lease takes nothing and refuses nothing', () => {
    const budget = new ReadBytesBudget(4 * SMALL);
    budget.lease(anotherIndex()).reserve(10 * SMALL);
    const lease = budget.lease(anotherIndex());
    lease.release();
    lease.reserve(5 * SMALL);
    expect(lease.holding).toBe(0);
    expect(budget.inFlight).toBe(10 * SMALL);
  });

  describe("one index's share", () => {
    const capacity = 8 * SMALL;
    const share = capacity * INDEX_SHARE;

    test("an index's large reads together stop at its share; another index's large read is still admitted", () => {
      const budget = new ReadBytesBudget(capacity);
      budget.lease('x').reserve(3 * SMALL);
      // Within the node's capacity (5 of 8), past the index's share (5 of 4).
      const error = refusal(() => budget.lease('x').reserve(2 * SMALL));
      expect(isAppError(error) && error.code).toBe('service_unavailable');
      expect(isAppError(error) && error.headers).toEqual({ 'retry-after': '1' });
      const other = budget.lease('y');
      other.reserve(4 * SMALL);
      expect(other.holding).toBe(4 * SMALL);
      expect(budget.inFlight).toBe(7 * SMALL);
    });

    test('up to the share, one index may hold several large reads', () => {
      const budget = new ReadBytesBudget(capacity);
      const first = budget.lease('x');
      first.reserve(2 * SMALL);
      const second = budget.lease('x');
      second.reserve(share - 2 * SMALL);
      expect(second.holding).toBe(share - 2 * SMALL);
      expect(budget.inFlight).toBe(share);
    });

    test("an index's first large read is admitted past the share, and small reads of the index are never refused", () => {
      // Twice the capacity, so that only the index's share can refuse below.
      const budget = new ReadBytesBudget(2 * capacity);
      const alone = budget.lease('x');
      alone.reserve(9 * SMALL);
      alone.reserve(SMALL); // the same read growing: its own share never refuses it
      expect(alone.holding).toBe(10 * SMALL);
      const small = budget.lease('x');
      small.reserve(SMALL);
      expect(small.holding).toBe(SMALL);
      // 13 of the node's 16: within it, past the index's 8.
      expect(refusal(() => budget.lease('x').reserve(2 * SMALL))).toBeDefined();
      const other = budget.lease('y');
      other.reserve(2 * SMALL);
      expect(budget.inFlight).toBe(13 * SMALL);
    });

    test('a read of the index that grows from small to large counts against the share from then on', () => {
      const budget = new ReadBytesBudget(capacity);
      const first = budget.lease('x');
      first.reserve(3 * SMALL);
      const growing = budget.lease('x');
      growing.reserve(SMALL / 2);
      // Growing to 2: 5 of the index's 4.
      expect(refusal(() => growing.reserve(1.5 * SMALL))).toBeDefined();
      expect(growing.holding).toBe(SMALL / 2);
      growing.reserve(SMALL / 2); // still small (up to SMALL_READ_BYTES)
      first.release();
      growing.reserve(SMALL);
      expect(growing.holding).toBe(2 * SMALL);
      expect(budget.indexesHoldingLargeReads).toBe(1);
      // Its whole share is the index's now: another read of it may add 2 more, not 3.
      expect(refusal(() => budget.lease('x').reserve(3 * SMALL))).toBeDefined();
      budget.lease('x').reserve(2 * SMALL);
      growing.release();
      expect(budget.inFlight).toBe(2 * SMALL);
    });

    test('a release gives the index its share back, and an index holding nothing is forgotten', () => {
      const budget = new ReadBytesBudget(capacity);
      const first = budget.lease('x');
      first.reserve(3 * SMALL);
      const waiting = budget.lease('x');
      expect(refusal(() => waiting.reserve(2 * SMALL))).toBeDefined();
      expect(budget.indexesHoldingLargeReads).toBe(1);
      first.release();
      expect(budget.indexesHoldingLargeReads).toBe(0);
      waiting.reserve(2 * SMALL);
      expect(waiting.holding).toBe(2 * SMALL);
      waiting.release();
      expect(budget.indexesHoldingLargeReads).toBe(0);
      expect(budget.inFlight).toBe(0);
    });
  });
});
