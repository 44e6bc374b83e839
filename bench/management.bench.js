// Management API benchmark (npm run bench). Starts searchplane on a temp data dir and a bare
// Fastify app, then measures with autocannon on loopback: the bare app's small constant route and
// a route returning the same ~3.5 KB record that GET /v2/search/{id} answers, that GET with Basic
// auth, and POST /v2/search (create). The routes take turns, round after round, so a change in the
// speed of a shared machine weighs on all of them; each row is the round with the median req/s.
// It prints numbers for information: nothing here passes or fails.
//
// Environment: BENCH_ROUNDS (3), BENCH_DURATION (s per route and round, 5), BENCH_WARMUP (s before
// each, 2), BENCH_CONNECTIONS (10), BENCH_LOG_LEVEL (warn), BENCH_DATABASE_URL (measure on
// PostgreSQL instead of SQLite), BENCH_ROUTES (a subset of "bare,get,create"), BENCH_PROFILE=1
// (run searchplane under `node --cpu-prof` and print where its CPU time went).
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
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
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));

const email = 'bench@example.com';
const apiKey = 'bench-api-key-0123456789abcdef';
const authorization = `Basic ${Buffer.from(`${email}:${apiKey}`).toString('base64')}`;

const workDir = mkdtempSync(path.join(os.tmpdir(), 'searchplane-bench-'));
const profileDir = path.join(workDir, 'profiles');
const servers = [];
let created = 0;

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
    // Names are unique per account, and a PostgreSQL store may hold an earlier run's.
    body: { name: `bench-target-${Date.now()}`, region: 'us-central1', type: 'payg' },
  });
  const record = await (await fetch(`${searchplane.url}/v2/search/${index.id}`, { headers: { authorization } })).text();
  const bare = await spawnServer({
    args: [path.join(root, 'bench/lib/bare-fastify.server.js')],
    env: { LOG_LEVEL: logLevel, BENCH_RECORD: record },
    logFile: path.join(workDir, 'bare.log'),
  });
  servers.push(bare);

  const targets = {
    bare: { name: 'bare Fastify route (constant)', url: `${bare.url}/`, serverPid: bare.pid },
    bareRecord: {
      name: `bare Fastify route (${record.length} B record)`,
      url: `${bare.url}/record`,
      serverPid: bare.pid,
    },
    get: {
      name: 'GET /v2/search/{id} (Basic auth)',
      url: `${searchplane.url}/v2/search/${index.id}`,
      serverPid: searchplane.pid,
      request: { method: 'GET', headers: { authorization } },
    },
    create: {
      name: 'POST /v2/search (create)',
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
    },
  };
  const keys = [
    ...(routes.has('bare') ? ['bare', 'bareRecord'] : []),
    ...(routes.has('get') ? ['get'] : []),
    ...(routes.has('create') ? ['create'] : []),
  ];
  const runs = Object.fromEntries(keys.map((key) => [key, []]));
  for (let round = 0; round < rounds; round++) {
    for (const key of keys) {
      runs[key].push(
        await measure(targets[key].name, { connections, durationSeconds, warmupSeconds, ...targets[key] }),
      );
    }
  }
  const results = Object.fromEntries(keys.map((key) => [key, medianRun(runs[key])]));

  console.log(
    `\nsearchplane management benchmark: Node ${process.version}, ${os.cpus().length} CPUs, autocannon ` +
      `${connections} connections, loopback, log level ${logLevel}, ` +
      `store ${databaseUrl ? 'PostgreSQL' : 'SQLite (WAL, synchronous=NORMAL)'}; ${rounds} round(s) of ` +
      `${durationSeconds} s per route after ${warmupSeconds} s warm-up, each row the round with the median req/s\n`,
  );
  printTable(Object.values(results));
  if (results.get && results.bareRecord) {
    const { get, bareRecord } = results;
    console.log(
      `\nGET /v2/search/{id}: p50 ${get.p50.toFixed(2)} ms, p99 ${get.p99.toFixed(2)} ms, ` +
        `${Math.round(get.rps).toLocaleString('en-US')} req/s = ${(get.rps / bareRecord.rps).toFixed(2)}x ` +
        'the bare route returning the same record',
    );
  }
  const failed = Object.values(results).filter((result) => result.non2xx > 0 || result.errors > 0);
  if (failed.length > 0)
    console.log(`\nWARNING: failed requests in: ${failed.map((result) => result.name).join(', ')}`);
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  if (profile) {
    const files = readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile'));
    for (const file of files) summarizeCpuProfile(path.join(profileDir, file));
    if (files[0]) {
      const kept = path.join(os.tmpdir(), `searchplane-bench-${Date.now()}.cpuprofile`);
      copyFileSync(path.join(profileDir, files[0]), kept);
      console.log(`\nprofile kept at ${kept} (open in Chrome DevTools > Performance)`);
    }
  }
  rmSync(workDir, { recursive: true, force: true });
}
