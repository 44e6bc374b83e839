// Small measurement helpers shared by the data-plane benchmark and its child processes.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

/** Nearest-rank percentile of ascending `sorted` values (NaN when empty). */
export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** `{ count, p50, p95, mean }` of latencies in ms. */
export function latencySummary(times) {
  const sorted = Float64Array.from(times).sort();
  let sum = 0;
  for (const t of sorted) sum += t;
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    mean: sorted.length ? sum / sorted.length : Number.NaN,
  };
}

/** Runs `once(item, i)` for every item in order, timing each; resolves to the latencies (ms). */
export async function timeEach(items, once) {
  const times = [];
  for (const [i, item] of items.entries()) {
    const start = performance.now();
    await once(item, i);
    times.push(performance.now() - start);
  }
  return times;
}

/**
 * `clients` concurrent loops calling `once(item)` over `items` (round robin) for `seconds`;
 * resolves to `{ qps, requests, p50, p95 }`. For clients sharing one event loop: an async `once`.
 */
export async function throughput(items, once, { clients, seconds }) {
  const times = [];
  let next = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const item = items[next++ % items.length];
        const t = performance.now();
        await once(item);
        times.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  return { qps: times.length / elapsed, requests: times.length, ...latencySummary(times) };
}

/** Ingest rates of `documents`: acknowledged after `ackSeconds`, fully indexed after `indexedSeconds`. */
export function ingestRates(documents, ackSeconds, indexedSeconds = ackSeconds) {
  return {
    ackSeconds,
    indexedSeconds,
    ackDocsPerSecond: documents / ackSeconds,
    indexedDocsPerSecond: documents / indexedSeconds,
  };
}

/** Resident set size of a process in bytes (Linux /proc; undefined elsewhere or when it has exited). */
export function rssOf(pid = process.pid) {
  try {
    const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return pid === process.pid ? process.memoryUsage().rss : undefined;
  }
}

/**
 * A process's resident memory split as Linux reports it: `anon` (private: heaps, graphs, caches)
 * and `file` (mapped file pages, here SQLite's memory-mapped database: the OS page cache, shared
 * and reclaimable). Undefined where /proc is not available.
 */
export function residentParts(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1] ?? Number.NaN) * 1024;
    return { anon: kb('RssAnon'), file: kb('RssFile') };
  } catch {
    return undefined;
  }
}

/**
 * This process's RSS after a full garbage collection (with --expose-gc): what it holds, without
 * garbage such as a released copy of the corpus.
 */
export function settledRss() {
  globalThis.gc?.();
  globalThis.gc?.();
  return rssOf();
}

/** Bytes of every file under `dir` (0 when it does not exist). */
export function dirSize(dir) {
  let total = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += dirSize(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What several rounds of one concurrent measurement (`{ qps, p50, p95 }` each) report: the median
 * QPS and the median p50 and p95, each over the rounds (`{ qps, concurrent: { p50, p95 }, rounds }`).
 * Rounds of the systems compared alternate (see data-plane.bench.js), so a machine whose speed
 * drifts during a run weighs on every system alike.
 */
export function medianRound(loads) {
  const median = (values) => percentile(Float64Array.from(values).sort(), 50);
  return {
    qps: median(loads.map((load) => load.qps)),
    concurrent: { p50: median(loads.map((load) => load.p50)), p95: median(loads.map((load) => load.p95)) },
    rounds: loads.map(({ qps, p50, p95 }) => ({ qps, p50, p95 })),
  };
}
