import { describe, expect, test } from 'vitest';
import { isAppError } from '../../errors.js';
import { ReadBytesBudget, SMALL_READ_BYTES } from './read-bytes-budget.js';

const SMALL = SMALL_READ_BYTES;

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
    const big = budget.lease();
    big.reserve(10 * SMALL);
    expect(budget.inFlight).toBe(10 * SMALL);
    const error = refusal(() => budget.lease().reserve(2 * SMALL));
    expect(isAppError(error) && error.code).toBe('service_unavailable');
    expect(isAppError(error) && error.headers).toEqual({ 'retry-after': '1' });
    expect(budget.inFlight).toBe(10 * SMALL);
  });

  test('small reads are admitted whatever others hold, up to SMALL_READ_BYTES per read', () => {
    const budget = new ReadBytesBudget(4 * SMALL);
    budget.lease().reserve(10 * SMALL);
    const small = budget.lease();
    small.reserve(SMALL / 2);
    small.reserve(SMALL / 2);
    expect(small.holding).toBe(SMALL);
    expect(refusal(() => small.reserve(1))).toBeDefined();
    expect(small.holding).toBe(SMALL);
  });

  test('small reads in flight do not keep a large read out (no starvation on a busy node)', () => {
    const budget = new ReadBytesBudget(4 * SMALL);
    for (let i = 0; i < 6; i++) budget.lease().reserve(SMALL);
    const large = budget.lease();
    large.reserve(10 * SMALL);
    expect(large.holding).toBe(10 * SMALL);
    // A second large read now waits for the first.
    expect(refusal(() => budget.lease().reserve(2 * SMALL))).toBeDefined();
    large.release();
    const next = budget.lease();
    next.reserve(2 * SMALL);
    expect(budget.inFlight).toBe(8 * SMALL);
  });

  test("a read's own share does not count against it; a release returns exactly that share, once", () => {
    const budget = new ReadBytesBudget(4 * SMALL);
    const a = budget.lease();
    a.reserve(3 * SMALL);
    a.reserve(3 * SMALL); // a second pass over rows, with nothing else held
    expect(a.holding).toBe(6 * SMALL);
    const b = budget.lease();
    expect(refusal(() => b.reserve(2 * SMALL))).toBeDefined();
    a.release();
    expect(budget.inFlight).toBe(0);
    a.release();
    expect(budget.inFlight).toBe(0);
    b.reserve(2 * SMALL);
    expect(budget.inFlight).toBe(2 * SMALL);
    // A read that grows from small to large counts as large from then on.
    const growing = budget.lease();
    growing.reserve(SMALL / 2);
    expect(refusal(() => growing.reserve(3 * SMALL))).toBeDefined();
    expect(growing.holding).toBe(SMALL / 2);
  });

  test('after its release (the client is gone) a lease takes nothing and refuses nothing', () => {
    const budget = new ReadBytesBudget(4 * SMALL);
    budget.lease().reserve(10 * SMALL);
    const lease = budget.lease();
    lease.release();
    lease.reserve(5 * SMALL);
    expect(lease.holding).toBe(0);
    expect(budget.inFlight).toBe(10 * SMALL);
  });
});
