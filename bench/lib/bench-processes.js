import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Spawns a server whose stdout goes to `logFile` (so the benchmark process does not spend CPU
 * reading logs) and waits for its `listening on <url>` line. Returns `{ url, stop() }`.
 */
export async function spawnServer({ args, env, logFile, timeoutMs = 30_000 }) {
  const out = openSync(logFile, 'w');
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', out, 'inherit'] });
  closeSync(out);
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = readFileSync(logFile, 'utf8').match(/listening on (http:\/\/\S+)/);
    if (match) {
      return {
        url: match[1],
        pid: child.pid,
        /** SIGTERM (graceful) and wait; resolves with the exit code. */
        stop: () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          return exited;
        },
      };
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${path.basename(args[0])} did not start:\n${readFileSync(logFile, 'utf8')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** One JSON request; throws on a non-2xx answer. */
export async function requestJson(url, { method = 'GET', headers = {}, body } = {}) {
  const response = await fetch(url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url} -> ${response.status} ${text}`);
  return JSON.parse(text);
}
