import { describe, expect, test } from 'vitest';
import { isAppError } from '../../errors.js';
import { ReadBytesBudget } from './read-bytes-budget.js';

function refusal(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('ReadBytesBudget', () => {
  test('admits any read while nothing is held, then refuses what would pass the capacity', () => {
    const budget = new ReadBytesBudget(100);
    const big = budget.lease();
    big.reserve(500);
    expect(budget.inFlight).toBe(500);
    const error = refusal(() => budget.lease().reserve(1));
    expect(isAppError(error) && error.code).toBe('service_unavailable');
    expect(isAppError(error) && error.headers).toEqual({ 'retry-after': '1' });
    expect(budget.inFlight).toBe(500);
  });

  test('reads within the capacity share it; a release returns exactly what its lease took, once', () => {
    const budget = new ReadBytesBudget(100);
    const a = budget.lease();
    const b = budget.lease();
    a.reserve(30);
    a.reserve(30);
    b.reserve(40);
    expect(refusal(() => b.reserve(1))).toBeDefined();
    a.release();
    expect(budget.inFlight).toBe(40);
    a.release();
    expect(budget.inFlight).toBe(40);
    b.reserve(60);
    b.release();
    expect(budget.inFlight).toBe(0);
  });

  test('a lease reserves nothing for empty reads and nothing after its release', () => {
    const budget = new ReadBytesBudget(100);
    const lease = budget.lease();
    lease.reserve(0);
    expect(budget.inFlight).toBe(0);
    lease.release();
    const error = refusal(() => lease.reserve(10));
    expect(isAppError(error) && error.code).toBe('internal_error');
    expect(budget.inFlight).toBe(0);
  });
});
