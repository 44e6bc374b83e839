// Numbers, sizes and times as people read them.

const integer = new Intl.NumberFormat('en');

export function formatCount(value) {
  return integer.format(value);
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];
export function formatBytes(bytes) {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(value < 10 ? 1 : 0)} ${UNITS[unit]}`;
}

/** A stats timestamp ("2026-11-22 14:05:00.000 +0000 UTC") as a Date. */
export function parseSeriesTime(x) {
  const iso = x.replace(' ', 'T').replace(/(\.\d+)? \+0000 UTC$/, 'Z');
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A point's time in the viewer's zone: the time of day for short spans, the date for long ones. */
export function formatSeriesTime(x, spanMs) {
  const date = parseSeriesTime(x);
  if (!date) return x;
  const options =
    spanMs > 2 * 86_400_000
      ? { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }
      : { hour: '2-digit', minute: '2-digit' };
  return date.toLocaleString(undefined, options);
}

export function formatDate(unixSeconds) {
  return new Date(unixSeconds * 1000).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A content or metadata value: strings as they are, anything else as compact JSON. */
export function formatValue(value) {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
