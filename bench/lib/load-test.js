import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

/**
 * Runs autocannon against one route (after an unmeasured warm-up of the same route, unless
 * `warmupSeconds` is 0) and returns
 * `{ name, rps, p50, p99, non2xx, errors, cpuPerRequest }`. Latencies are in ms from every 2xx
 * response: autocannon's own histogram rounds to whole milliseconds, too coarse for loopback.
 * With `serverPid` (Linux), `cpuPerRequest` is the server process's CPU time per request in µs:
 * unlike req/s it hardly depends on what else the machine is running.
 */
export async function measure(name, options) {
  const base = { connections: options.connections, pipelining: 1, url: options.url };
  // Per-request options (method, headers, setupRequest) only apply inside `requests`.
  const requests = options.request ? [options.request] : undefined;
  if (options.warmupSeconds > 0) await autocannon({ ...base, requests, duration: options.warmupSeconds });

  const latencies = new LatencyRecorder();
  const cpuBefore = cpuMilliseconds(options.serverPid);
  const run = autocannon({ ...base, requests, duration: options.durationSeconds });
  run.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) latencies.record(responseTime);
  });
  const result = await run;
  const cpuAfter = cpuMilliseconds(options.serverPid);
  return {
    name,
    // Over the whole run: autocannon's per-second average rounds a 2-second run to 2 samples.
    rps: result.requests.total / result.duration,
    p50: latencies.percentile(50),
    p99: latencies.percentile(99),
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpuPerRequest:
      cpuBefore === undefined || cpuAfter === undefined
        ? Number.NaN
        : (1000 * (cpuAfter - cpuBefore)) / result.requests.total,
  };
}

/** User + system CPU time of a process in ms, from /proc (undefined where there is none). */
function cpuMilliseconds(pid) {
  if (pid === undefined) return undefined;
  try {
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th, in ticks.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}
// USER_HZ: 100 on every Linux architecture Node runs on.
const CLOCK_TICKS_PER_SECOND = 100;

/** The run with the median req/s of several runs of one route (the upper median of an even count). */
export function medianRun(runs) {
  const sorted = [...runs].sort((a, b) => a.rps - b.rps);
  return { ...sorted[Math.floor(sorted.length / 2)], rounds: runs.length };
}

class LatencyRecorder {
  values = new Float64Array(1 << 16);
  count = 0;

  record(ms) {
    if (this.count === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.count++] = ms;
  }

  percentile(p) {
    if (this.count === 0) return Number.NaN;
    const sorted = this.values.subarray(0, this.count).sort();
    return sorted[Math.min(this.count - 1, Math.ceil((p / 100) * this.count) - 1)];
  }
}

/** Prints the results as an aligned table. */
export function printTable(rows) {
  const header = ['route', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'non-2xx', 'errors'];
  const lines = rows.map((row) => [
    row.name,
    Math.round(row.rps).toLocaleString('en-US'),
    row.p50.toFixed(2),
    row.p99.toFixed(2),
    Number.isNaN(row.cpuPerRequest) ? '-' : row.cpuPerRequest.toFixed(1),
    String(row.non2xx),
    String(row.errors),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column].length)));
  const format = (cells) =>
    cells
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column])))
      .join('  ');
  console.log(format(header));
  for (const line of lines) console.log(format(line));
}
