import { boundedCache } from './bounded-cache.js';

/** Milliseconds since the epoch; injected so tests can move time. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** Formatted times by unix second: 50,000 at most, least recently used dropped first. */
const formatted = boundedCache<number, string>({ max: 50_000 });

/** Formats unix seconds the way the public API writes series points: `2026-11-22 14:05:00.000 +0000 UTC`. */
export function formatSeriesTime(unixSeconds: number): string {
  // Every series repeats the same few hundred bucket times; format each once.
  let text = formatted.get(unixSeconds);
  if (text === undefined) {
    text = formatTime(unixSeconds);
    formatted.set(unixSeconds, text);
  }
  return text;
}

function formatTime(unixSeconds: number): string {
  const d = new Date(unixSeconds * 1000);
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)} +0000 UTC`
  );
}

/** Start of the UTC day containing `unixSeconds`. */
export function utcDayStart(unixSeconds: number): number {
  return unixSeconds - (unixSeconds % 86_400);
}

/** Start of the UTC month containing `unixSeconds`. */
export function utcMonthStart(unixSeconds: number): number {
  const d = new Date(unixSeconds * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
}

/** Start of the next UTC month after the one containing `unixSeconds`. */
export function utcNextMonthStart(unixSeconds: number): number {
  const d = new Date(unixSeconds * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
}
