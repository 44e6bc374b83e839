import { describe, expect, test } from 'vitest';
import { DEFAULT_PLANS, mergePlans, quotasOf } from './plans.js';

describe('mergePlans', () => {
  test('without overrides returns the defaults, fixed unavailable', () => {
    expect(mergePlans(undefined)).toEqual(DEFAULT_PLANS);
    expect(DEFAULT_PLANS.fixed.available).toBe(false);
  });

  test('overrides single fields and can enable fixed', () => {
    const plans = mergePlans({ fixed: { available: true }, free: { max_vector_count: 5 } });
    expect(plans.fixed.available).toBe(true);
    expect(plans.free.max_vector_count).toBe(5);
    expect(plans.free.max_daily_queries).toBe(10_000);
    expect(DEFAULT_PLANS.free.max_vector_count).toBe(200_000);
  });

  test('lists every problem at once', () => {
    expect(() => mergePlans({ gold: {}, free: { max_vector_count: -2, colour: 'red', available: 'yes' } })).toThrow(
      /unknown plan "gold".*free.max_vector_count must be an integer ≥ -1.*unknown field "free.colour".*free.available must be a boolean/,
    );
    expect(() => mergePlans([1])).toThrow(/JSON object/);
  });

  test('quotasOf keeps only the nine quota fields', () => {
    expect(Object.keys(quotasOf(DEFAULT_PLANS.payg))).toHaveLength(9);
    expect(quotasOf(DEFAULT_PLANS.payg)).not.toHaveProperty('available');
  });
});
