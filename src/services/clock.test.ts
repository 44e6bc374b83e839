import { expect, test } from 'vitest';
import { formatSeriesTime, utcDayStart, utcMonthStart, utcNextMonthStart } from './clock.js';

test('formatSeriesTime writes the public API shape', () => {
  expect(formatSeriesTime(Date.parse('2026-11-22T14:05:00Z') / 1000)).toBe('2026-11-22 14:05:00.000 +0000 UTC');
  expect(formatSeriesTime(0)).toBe('1970-01-01 00:00:00.000 +0000 UTC');
});

test('UTC day and month boundaries', () => {
  const t = Date.parse('2026-12-31T23:59:59Z') / 1000;
  expect(utcDayStart(t)).toBe(Date.parse('2026-12-31T00:00:00Z') / 1000);
  expect(utcMonthStart(t)).toBe(Date.parse('2026-12-01T00:00:00Z') / 1000);
  expect(utcNextMonthStart(t)).toBe(Date.parse('2027-01-01T00:00:00Z') / 1000);
});
