// One FTS5 client thread of the throughput measurement: its own read-only connection, the
// queries round robin for `seconds`; posts `{ requests, seconds }`.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { SEARCH_SQL } from './fts5-sql.js';

const { file, matches, seconds, offset } = workerData;
const db = new Database(file, { readonly: true });
const search = db.prepare(SEARCH_SQL);
const start = performance.now();
const end = start + seconds * 1000;
let requests = 0;
while (performance.now() < end) {
  search.all(matches[(offset + requests) % matches.length]);
  requests++;
}
db.close();
parentPort.postMessage({ requests, seconds: (performance.now() - start) / 1000 });
