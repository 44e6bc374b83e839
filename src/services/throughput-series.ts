import type { UsageCounters } from '../store/repositories/usage.repository.js';
import { type Clock, formatSeriesTime } from './clock.js';
import type { UsageMeter } from './usage-meter.service.js';

export interface ThroughputPoint {
  x: string;
  y: number;
}

/** Points in a record's `throughput_vector`: the last hour, one per UTC minute. */
export const SERIES_POINTS = 60;
/**
 * Where the store cannot say when usage changed (PostgreSQL, where every node flushes its own),
 * stored usage is re-read at most this often; other nodes' traffic shows up that much later
 * (after their own flush, every `SEARCHPLANE_METERING_FLUSH_MS`).
 */
export const STORED_USAGE_RECHECK_MS = 1000;
/** Series kept; past this the least recently built ones are dropped (and rebuilt on demand). */
const MAX_SERIES = 2000;

interface Series {
  /** The store's change token (or re-check period) the stored part was read under. */
  version: string;
  /** Unix seconds of the newest minute; `counts[SERIES_POINTS - 1]` belongs to it. */
  minute: number;
  /** Data-plane requests (queries + updates) per minute, oldest first. */
  counts: number[];
  /** The JSON array, rendered on demand and kept until a count or the minute changes. */
  json: string | undefined;
}

/**
 * The `throughput_vector` of each index, kept current incrementally instead of summed from the
 * store on every request: stored usage (every node's flushed traffic) is read once per store
 * change, this node's traffic is added as the meter records it, and the window slides when the
 * minute turns. The JSON text is kept too, so an unchanged series is never rendered twice.
 *
 * The sum stays exact because this node's flushes only move counts from unflushed to stored:
 * a series is kept only if it was read while no flush started or ended. On SQLite any other
 * write to the store (a deleted index, the CLI) changes the token and forces a re-read; on
 * PostgreSQL stored usage is re-read every {@link STORED_USAGE_RECHECK_MS}.
 */
export class ThroughputSeries {
  private readonly series = new Map<string, Series>();

  constructor(
    private readonly usage: UsageMeter,
    private readonly clock: Clock,
    /** The store's change token; undefined when it cannot tell (PostgreSQL). */
    private readonly changeToken: () => string | undefined,
  ) {
    usage.onRecord((indexId, minute, counters) => this.recorded(indexId, minute, counters));
  }

  /**
   * The series as a JSON array (the same string object for as long as it does not change);
   * synchronous when the kept series is current, which is the common case.
   */
  json(indexId: string): string | Promise<string> {
    const kept = this.kept(indexId);
    if (kept) return jsonOf(kept);
    return this.read(indexId).then(jsonOf);
  }

  /** The series as points, oldest first, ending with the current minute. */
  async points(indexId: string): Promise<ThroughputPoint[]> {
    const series = this.kept(indexId) ?? (await this.read(indexId));
    return series.counts.map((y, i) => ({ x: formatSeriesTime(firstMinute(series) + i * 60), y }));
  }

  /** Drops an index's series (a deleted index). */
  forget(indexId: string): void {
    this.series.delete(indexId);
  }

  /** The kept series, moved to the current minute, if it is still exact. */
  private kept(indexId: string): Series | undefined {
    const kept = this.series.get(indexId);
    if (!kept || kept.version !== this.version()) return undefined;
    const minute = minuteOf(this.clock());
    // A clock that went back (tests move it freely) needs minutes the window already dropped.
    if (minute < kept.minute) return undefined;
    slide(kept, minute);
    return kept;
  }

  /** Reads stored usage and adds this node's unflushed usage; keeps the result when it is exact. */
  private async read(indexId: string): Promise<Series> {
    const minute = minuteOf(this.clock());
    const version = this.version();
    const from = minute - (SERIES_POINTS - 1) * 60;
    const to = minute + 60;
    const flushesBefore = this.usage.flushEpoch;
    const quiet = !this.usage.flushing;
    const byMinute = await this.usage.storedBuckets([indexId], from, to, 60);
    // From here on synchronous: no usage can be recorded between the snapshot and keeping it.
    this.usage.addUnflushed(byMinute, [indexId], from, to, 60);
    const counts = Array.from({ length: SERIES_POINTS }, (_, i) => requestsIn(byMinute.get(from + i * 60)));
    const series: Series = { version, minute, counts, json: undefined };
    const exact =
      quiet &&
      this.usage.flushEpoch === flushesBefore &&
      this.version() === version &&
      minuteOf(this.clock()) === minute;
    if (exact) {
      this.series.delete(indexId);
      if (this.series.size >= MAX_SERIES) this.series.delete(this.series.keys().next().value as string);
      this.series.set(indexId, series);
    }
    return series;
  }

  private recorded(indexId: string, minute: number, counters: Partial<UsageCounters>): void {
    const series = this.series.get(indexId);
    if (!series) return;
    const requests = (counters.queries ?? 0) + (counters.updates ?? 0);
    if (requests === 0) return;
    slide(series, minute);
    const slot = SERIES_POINTS - 1 - (series.minute - minute) / 60;
    if (slot < 0) return;
    series.counts[slot] += requests;
    series.json = undefined;
  }

  private version(): string {
    return this.changeToken() ?? `t${Math.floor(this.clock() / STORED_USAGE_RECHECK_MS)}`;
  }
}

function jsonOf(series: Series): string {
  if (series.json === undefined) series.json = render(series);
  return series.json;
}

function minuteOf(ms: number): number {
  const seconds = Math.floor(ms / 1000);
  return seconds - (seconds % 60);
}

function firstMinute(series: Series): number {
  return series.minute - (SERIES_POINTS - 1) * 60;
}

function requestsIn(counters: UsageCounters | undefined): number {
  return counters ? counters.queries + counters.updates : 0;
}

/** Moves the window forward to end at `minute` (new minutes start at zero); never backwards. */
function slide(series: Series, minute: number): void {
  if (minute <= series.minute) return;
  const steps = (minute - series.minute) / 60;
  if (steps >= SERIES_POINTS) series.counts.fill(0);
  else {
    series.counts.copyWithin(0, steps);
    series.counts.fill(0, SERIES_POINTS - steps);
  }
  series.minute = minute;
  series.json = undefined;
}

function render(series: Series): string {
  const first = firstMinute(series);
  let json = '[';
  for (let i = 0; i < SERIES_POINTS; i++) {
    json += `${i === 0 ? '' : ','}{"x":${JSON.stringify(formatSeriesTime(first + i * 60))},"y":${series.counts[i]}}`;
  }
  return `${json}]`;
}
