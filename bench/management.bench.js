// Management API benchmark (npm run bench). Starts searchplane on a temp data dir and a bare
// Fastify app for comparison, then measures each route with autocannon on loopback, one after the
// other: a constant route, the same route returning the ~3.5 KB index record, GET /v2/search/{id}
// with Basic auth, POST /v2/search (create). Prints numbers; it is not a timed test.
//
// Environment: BENCH_DURATION (s per route and round, default 5), BENCH_WARMUP (s, 2),
// BENCH_CONNECTIONS (10), BENCH_ROUNDS (5: the routes are measured in turn that many times, each
// row is the round with the median req/s and the GET ratio the median of the rounds' ratios, which
// evens out a machine that other work shares; 1 for a single pass),
// BENCH_LOG_LEVEL (warn; "info" adds two request log lines per request to both servers),
// BENCH_DATABASE_URL (measure on PostgreSQL instead of SQLite), BENCH_ROUTES (a subset of
// "bare,get,create"), BENCH_PROFILE=1 (run searchplane under `node --cpu-prof` and print where its
// CPU time went; best with one route in BENCH_ROUTES).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MALLOC_TUNING } from '../dist/malloc-tuning.js';
import { requestJson, spawnServer } from './lib/bench-processes.js';
import { summarizeCpuProfile } from './lib/cpu-profile-summary.js';
import { measure, medianRun, printTable } from './lib/load-test.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const durationSeconds = Number(process.env.BENCH_DURATION ?? 5);
const warmupSeconds = Number(process.env.BENCH_WARMUP ?? 2);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const logLevel = process.env.BENCH_LOG_LEVEL ?? 'warn';
const databaseUrl = process.env.BENCH_DATABASE_URL;
const profile = process.env.BENCH_PROFILE === '1';
const routes = new Set((process.env.BENCH_ROUTES ?? 'bare,get,create').split(','));
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
/** GET /v2/search/{id} against the bare route returning the same record, in the same run (issue #11). */
const GET_TARGET_RATIO = 0.8;

const email = 'bench@example.com';
const apiKey = 'bench-api-key-0123456789abcdef';
const authorization = `Basic ${Buffer.from(`${email}:${apiKey}`).toString('base64')}`;

const workDir = mkdtempSync(path.join(os.tmpdir(), 'searchplane-bench-'));
const profileDir = path.join(workDir, 'profiles');
const servers = [];
try {
  const searchplane = await spawnServer({
    args: [
      ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      path.join(root, 'bin/searchplane.js'),
      'serve',
      '--port',
      '0',
      '--data-dir',
      path.join(workDir, 'data'),
      ...(databaseUrl ? ['--database-url', databaseUrl] : []),
    ],
    // As `npm start` runs it.
    env: { ...MALLOC_TUNING, LOG_LEVEL: logLevel, SEARCHPLANE_ADMIN_EMAIL: email, SEARCHPLANE_ADMIN_API_KEY: apiKey },
    logFile: path.join(workDir, 'searchplane.log'),
  });
  servers.push(searchplane);

  const index = await requestJson(`${searchplane.url}/v2/search`, {
    method: 'POST',
    headers: { authorization },
    body: { name: 'bench-target', region: 'us-central1', type: 'payg' },
  });
  const record = await (await fetch(`${searchplane.url}/v2/search/${index.id}`, { headers: { authorization } })).text();
  const bare = await spawnServer({
    args: [path.join(root, 'bench/lib/bare-fastify.server.js')],
    env: { LOG_LEVEL: logLevel, BENCH_RECORD: record },
    logFile: path.join(workDir, 'bare.log'),
  });
  servers.push(bare);

  const common = { connections, durationSeconds, warmupSeconds };
  const runs = {};
  const run = async (key, name, options) => {
    const result = await measure(name, { ...common, ...options });
    if (!runs[key]) runs[key] = [];
    runs[key].push(result);
  };
  let created = 0;
  for (let round = 0; round < rounds; round++) {
    if (routes.has('bare')) {
      await run('bare', 'bare Fastify route (constant)', { url: `${bare.url}/`, serverPid: bare.pid });
      await run('bareRecord', `bare Fastify route (${record.length} B record)`, {
        url: `${bare.url}/record`,
        serverPid: bare.pid,
      });
    }
    if (routes.has('get')) {
      await run('get', 'GET /v2/search/{id} (Basic auth)', {
        url: `${searchplane.url}/v2/search/${index.id}`,
        serverPid: searchplane.pid,
        request: { method: 'GET', headers: { authorization } },
      });
    }
    if (routes.has('create')) {
      await run('create', 'POST /v2/search (create)', {
        url: `${searchplane.url}/v2/search`,
        serverPid: searchplane.pid,
        request: {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          // A fresh name for every request: names are unique per account.
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify({ name: `bench-${++created}`, region: 'eu-west-1', type: 'payg' }),
          }),
        },
      });
    }
  }
  const results = Object.fromEntries(Object.entries(runs).map(([key, list]) => [key, medianRun(list)]));

  console.log(
    `\nsearchplane management benchmark: Node ${process.version}, ${os.cpus().length} CPUs, autocannon ` +
      `${connections} connections, ${durationSeconds} s per route after ${warmupSeconds} s warm-up, loopback, ` +
      `log level ${logLevel}, store ${databaseUrl ? 'PostgreSQL' : 'SQLite (WAL, synchronous=NORMAL)'}\n`,
  );
  if (rounds > 1) console.log(`each row: the round with the median req/s of ${rounds} rounds\n`);
  printTable(Object.values(results));
  if (results.bareRecord && results.get) {
    // Each round measures the two routes back to back, so their ratio is taken per round (what
    // else runs on the machine changes less within a round than across rounds), then the median.
    const perRound = runs.get.map((get, i) => get.rps / runs.bareRecord[i].rps);
    const ratio = median(perRound);
    const met = ratio >= GET_TARGET_RATIO ? 'met' : 'MISSED';
    console.log(
      `\nGET /v2/search/{id} vs bare route returning the same record: ${ratio.toFixed(2)}x  (target >= ${GET_TARGET_RATIO.toFixed(2)}x: ${met})`,
    );
    if (rounds > 1) console.log(`  median of the rounds: ${perRound.map((r) => r.toFixed(2)).join(', ')}`);
    const cpu = median(runs.get.map((get, i) => runs.bareRecord[i].cpuPerRequest / get.cpuPerRequest));
    if (!Number.isNaN(cpu)) console.log(`  in server CPU per request (bare / GET): ${cpu.toFixed(2)}x`);
    if (results.bare) {
      const sized = results.bareRecord.rps / results.bare.rps;
      console.log(`bare route with the record vs a small constant: ${sized.toFixed(2)}x (the bytes alone)`);
    }
  }
  if (results.create) {
    const rate = results.create.rps;
    console.log(
      `create: ${Math.round(rate).toLocaleString('en-US')}/s  (target >= 2,000/s: ${rate >= 2000 ? 'met' : 'MISSED'})`,
    );
  }
  const failed = Object.values(results).filter((result) => result.non2xx > 0 || result.errors > 0);
  if (failed.length > 0)
    console.log(`\nWARNING: failed requests in: ${failed.map((result) => result.name).join(', ')}`);
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  if (profile) {
    for (const file of readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile'))) {
      summarizeCpuProfile(path.join(profileDir, file));
    }
    const kept = path.join(os.tmpdir(), `searchplane-bench-${Date.now()}.cpuprofile`);
    const [first] = readdirSync(profileDir);
    if (first) {
      const { copyFileSync } = await import('node:fs');
      copyFileSync(path.join(profileDir, first), kept);
      console.log(`\nprofile kept at ${kept} (open in Chrome DevTools > Performance)`);
    }
  }
  rmSync(workDir, { recursive: true, force: true });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
