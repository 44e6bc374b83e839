// What searchplane's own code costs per `GET /v2/search/{id}`, measured in this process on the
// services a server wires (a fresh SQLite store), without HTTP: the remembered-credentials check,
// the login throttle's check and record, and the record lookup, each called in a loop, warm. They
// move with the machine's speed like everything else (390–625 ns for the credentials check in one
// session), but not with HTTP's and Fastify's share of a GET: they show how much of a GET is ours.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../dist/config.js';
import { LoginThrottle, loginThrottleLimits } from '../../dist/http/management/login-throttle.js';
import { systemClock } from '../../dist/services/clock.js';
import { createServices } from '../../dist/services/index.js';
import { migrateToLatest, openStore } from '../../dist/store/database.js';

const CALLS = 200_000;
const ROUNDS = 7;

/** `{ credentials, throttle, record }` in ns per call: each the median of the rounds. */
export async function measureHotPath() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'searchplane-hot-path-'));
  const store = openStore({ dataDir });
  try {
    await migrateToLatest(store);
    const config = loadConfig({ dataDir }, {});
    const services = createServices({ config, store, clock: systemClock });
    const email = 'hot-path@example.com';
    const { api_key: apiKey } = await services.accounts.create(email);
    const header = `Basic ${Buffer.from(`${email}:${apiKey}`).toString('base64')}`;
    const { id } = await services.indexes.create(email, { name: 'hot-path', region: 'us-central1', type: 'payg' });
    // After the write above, which emptied the read cache: the account row is kept again.
    await services.accounts.authenticate(email, apiKey);
    services.accounts.rememberHeader(header, email, email);
    // The first call reads the row and the series, after which both are kept.
    await services.indexes.getJson(email, id);

    // Each request brings its own header string (Node makes one per request), never the one kept.
    const headers = Array.from({ length: 1024 }, () => Buffer.from(header).toString('latin1'));
    // Before and after the loops (nothing writes meanwhile): they measure the kept path throughout,
    // never a miss.
    const assertKept = (when) => {
      if (services.accounts.verifiedHeaderNow(headers[0], Date.now())?.email !== email) {
        throw new Error(`the header is not recognised ${when} the loops`);
      }
      if (services.indexes.getJson(email, id) instanceof Promise)
        throw new Error(`the record is not kept ${when} the loops`);
    };
    const throttle = new LoginThrottle(loginThrottleLimits(config.authFailureLimit), systemClock);
    const address = '127.0.0.1';
    assertKept('before');
    const result = {
      credentials: median(rounds((i) => services.accounts.verifiedHeaderNow(headers[i & 1023], Date.now()))),
      throttle: median(
        rounds(() => {
          const now = Date.now();
          throttle.retryAfter(email, address, now);
          throttle.recordSuccess(email, address, now);
        }),
      ),
      record: median(rounds(() => services.indexes.getJson(email, id))),
    };
    assertKept('after');
    return result;
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** ns per call of `call(i)`, one number per round (the first round warms up and is dropped). */
function rounds(call) {
  const perRound = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) call(i);
    const ns = Number(process.hrtime.bigint() - start) / CALLS;
    if (round > 0) perRound.push(ns);
  }
  return perRound;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
