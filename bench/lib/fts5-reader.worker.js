// One FTS5 client thread of the throughput measurement: its own read-only connection, the
// queries round robin for `seconds`; posts `{ times, seconds }` (each query's ms).
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { SEARCH_SQL } from './fts5-sql.js';

const { file, matches, seconds, offset } = workerData;
const db = new Database(file, { readonly: true });
const search = db.prepare(SEARCH_SQL);
const start = performance.now();
const end = start + seconds * 1000;
const times = [];
while (performance.now() < end) {
  const t = performance.now();
  search.all(matches[(offset + times.length) % matches.length]);
  times.push(performance.now() - t);
}
db.close();
parentPort.postMessage({ times, seconds: (performance.now() - start) / 1000 });
