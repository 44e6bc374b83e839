import { describe, expect, test } from 'vitest';
import { isAppError } from '../../errors.js';
import { ReadBytesBudget, SMALL_READ_BYTES } from './read-bytes-budget.js';

const MB = 1_048_576;

function refusal(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('ReadBytesBudget', () => {
  test('admits any read while nothing else is held, then refuses large ones that would pass the capacity', () => {
    const budget = new ReadBytesBudget(4 * MB);
    const big = budget.lease();
    big.reserve(10 * MB);
    expect(budget.inFlight).toBe(10 * MB);
    const error = refusal(() => budget.lease().reserve(2 * MB));
    expect(isAppError(error) && error.code).toBe('service_unavailable');
    expect(isAppError(error) && error.headers).toEqual({ 'retry-after': '1' });
    expect(budget.inFlight).toBe(10 * MB);
  });

  test('small reads are admitted whatever others hold, up to SMALL_READ_BYTES per read', () => {
    const budget = new ReadBytesBudget(4 * MB);
    budget.lease().reserve(10 * MB);
    const small = budget.lease();
    small.reserve(SMALL_READ_BYTES / 2);
    small.reserve(SMALL_READ_BYTES / 2);
    expect(small.holding).toBe(SMALL_READ_BYTES);
    expect(refusal(() => small.reserve(1))).toBeDefined();
    expect(small.holding).toBe(SMALL_READ_BYTES);
  });

  test("a read's own share does not count against it; a release returns exactly that share, once", () => {
    const budget = new ReadBytesBudget(4 * MB);
    const a = budget.lease();
    a.reserve(3 * MB);
    a.reserve(3 * MB); // a second pass over rows, with nothing else held
    expect(a.holding).toBe(6 * MB);
    const b = budget.lease();
    expect(refusal(() => b.reserve(2 * MB))).toBeDefined();
    a.release();
    expect(budget.inFlight).toBe(0);
    a.release();
    expect(budget.inFlight).toBe(0);
    b.reserve(2 * MB);
    expect(budget.inFlight).toBe(2 * MB);
  });

  test('after its release (the client is gone) a lease takes nothing and refuses nothing', () => {
    const budget = new ReadBytesBudget(4 * MB);
    budget.lease().reserve(10 * MB);
    const lease = budget.lease();
    lease.release();
    lease.reserve(5 * MB);
    expect(lease.holding).toBe(0);
    expect(budget.inFlight).toBe(10 * MB);
  });
});
