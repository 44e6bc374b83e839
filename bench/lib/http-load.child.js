// Load generator (a child process, so its CPU and event loop are not the measuring process's):
// `clients` concurrent loops posting the given bodies round robin, until `seconds` pass or the
// parent sends `stop`. Result: { qps, requests, p50, p95, errors }.
import { latencySummary } from './bench-stats.js';
import { childMain } from './child-runner.js';
import { jsonClient } from './http-json.js';

childMain('load', async ({ dataUrl, token, path, bodies, clients, seconds }, { ready, onMessage }) => {
  const client = jsonClient(dataUrl, token, { connections: clients });
  let stopped = false;
  onMessage((message) => {
    if (message === 'stop') stopped = true;
  });
  const deadline = seconds ? performance.now() + seconds * 1000 : Number.POSITIVE_INFINITY;
  const times = [];
  let errors = 0;
  let next = 0;
  const start = performance.now();
  ready();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (!stopped && performance.now() < deadline) {
        const body = bodies[next++ % bodies.length];
        const t = performance.now();
        try {
          await client.post(path, body);
          times.push(performance.now() - t);
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  client.close();
  const { p50, p95 } = latencySummary(times);
  return { qps: times.length / elapsed, requests: times.length, p50, p95, errors };
});
