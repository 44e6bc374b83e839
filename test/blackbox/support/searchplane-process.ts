import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = `${ROOT}bin/searchplane.js`;
const DEFAULT_TIMEOUT_MS = 20_000;

/** Every variable that configures searchplane; children never inherit them from the test runner. */
const CONFIG_VARIABLES = /^(SEARCHPLANE_|DATABASE_URL$|HOST$|PORT$|LOG_LEVEL$)/;

function childEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  if (!existsSync(`${ROOT}dist/cli/index.js`)) {
    throw new Error('dist/ is missing: black-box tests run the built CLI; run `npm run build` (npm test does).');
  }
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !CONFIG_VARIABLES.test(name)));
  return { ...clean, LOG_LEVEL: 'warn', ...env };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts `searchplane <args>` and returns at once, for tests that act while it runs. */
export function spawnCli(args: string[], env?: Record<string, string>): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: childEnv(env), stdio: 'pipe' });
}

/** Runs `searchplane <args>` to completion, with `input` (if any) on its stdin. */
export function runCli(args: string[], env?: Record<string, string>, input?: string): Promise<CliResult> {
  const child = spawnCli(args, env);
  child.stdin.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Parses the single JSON document a CLI command printed. */
export function parseJson<T = any>(text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`not JSON: ${text.slice(0, 300)}`);
  }
}

const running = new Set<ServerProcess>();

/** OS limits and runtime options a server process is started under. */
export interface ProcessLimits {
  /** `ulimit -n`: the most file descriptors it may have open. */
  openFiles?: number;
  /** Options for node itself (before the script), e.g. V8 flags. */
  nodeOptions?: string[];
}

/** A `searchplane serve` child process; its output is collected for assertions. */
export class ServerProcess {
  stdout = '';
  stderr = '';
  url = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;
  private waiters: (() => void)[] = [];

  constructor(args: string[], env?: Record<string, string>, limits: ProcessLimits = {}) {
    const command = [
      process.execPath,
      ...(limits.nodeOptions ?? []),
      BIN,
      'serve',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      ...args,
    ];
    // With a descriptor limit, bash sets it and then becomes the server (exec keeps the pid).
    const [file, ...rest] =
      limits.openFiles === undefined
        ? command
        : ['bash', '-c', `ulimit -n ${limits.openFiles} && exec "$0" "$@"`, ...command];
    this.child = spawn(file, rest, { cwd: ROOT, env: childEnv(env), stdio: 'pipe' });
    running.add(this);
    const notify = () => {
      for (const waiter of this.waiters) waiter();
    };
    this.child.stdout?.on('data', (chunk) => {
      this.stdout += chunk;
      notify();
    });
    this.child.stderr?.on('data', (chunk) => {
      this.stderr += chunk;
      notify();
    });
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code) => {
        running.delete(this);
        notify();
        resolve(code);
      });
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get isRunning(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves with the first match of `pattern` in stdout; rejects if the process exits first. */
  waitForOutput(pattern: RegExp, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`timed out waiting for ${pattern}`)), timeoutMs);
      const check = () => {
        const match = this.stdout.match(pattern);
        if (match) return finish(undefined, match);
        if (!this.isRunning) finish(new Error(`server exited before ${pattern}:\n${this.stdout}\n${this.stderr}`));
      };
      const finish = (error?: Error, match?: RegExpMatchArray) => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((waiter) => waiter !== check);
        if (error) reject(error);
        else resolve(match!);
      };
      this.waiters.push(check);
      check();
    });
  }

  /** Sends a signal and resolves with the exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.isRunning) this.child.kill(signal);
    return this.exited;
  }
}

/**
 * Starts `searchplane serve` on a free port (`--port 0`), reads the URL it prints and polls
 * `/healthz` until it answers 200.
 */
export async function startServer(
  args: string[],
  env?: Record<string, string>,
  limits?: ProcessLimits,
): Promise<ServerProcess> {
  const server = new ServerProcess(args, env, limits);
  const [, url] = await server.waitForOutput(/searchplane listening on (http:\/\/\S+)/);
  server.url = url;
  await waitForHealthy(url);
  return server;
}

/** Polls `GET /healthz` until 200 (a bounded wait, not a fixed sleep). */
export async function waitForHealthy(url: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.status === 200) return;
    } catch {
      // not accepting connections yet
    }
    if (Date.now() > deadline) throw new Error(`${url}/healthz did not answer 200 within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Kills (SIGKILL) every server a test left running; for afterEach. */
export async function killServers(): Promise<void> {
  const left = [...running];
  await Promise.all(left.map((server) => server.stop('SIGKILL')));
}
