import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createListeningApp, type ListeningContext } from '../../helpers/data-plane.js';
import { createAccount, type TestAccount } from '../../helpers/factories.js';
import { type CliResult, runCli } from './searchplane-process.js';

/** An app listening on 127.0.0.1, an account on it, and the CLI pointed at it. */
export interface RemoteTarget {
  ctx: ListeningContext;
  account: TestAccount;
  /** XDG_CONFIG_HOME of every CLI run: the login file goes there, never to the real home. */
  configHome: string;
  /** A scratch folder for import and export files. */
  workDir: string;
  /** `--url U --email E --key K`, as program options. */
  flags(): string[];
  /** `searchplane --url U --email E --key K <args>`, with `input` on stdin. */
  run(args: string[], env?: Record<string, string>, input?: string): Promise<CliResult>;
  /** `searchplane <args>` with no credentials but what `env` (and the login file) give. */
  runBare(args: string[], env?: Record<string, string>, input?: string): Promise<CliResult>;
  /** Writes a file in the scratch folder and returns its path. */
  file(name: string, text: string): string;
}

/**
 * One in-process app (fresh store, SQLite or PostgreSQL like every integration test) for the
 * whole test file, with one account; the CLI runs as a real child process against it.
 */
export function useRemoteTarget(options: { env?: Record<string, string> } = {}): RemoteTarget {
  const target = {} as RemoteTarget;
  beforeAll(async () => {
    const ctx = await createListeningApp({ env: options.env });
    const account = await createAccount(ctx.app);
    const configHome = mkdtempSync(path.join(os.tmpdir(), 'searchplane-cli-config-'));
    const workDir = mkdtempSync(path.join(os.tmpdir(), 'searchplane-cli-work-'));
    const runBare = (args: string[], env: Record<string, string> = {}, input?: string) =>
      runCli(args, { XDG_CONFIG_HOME: configHome, ...env }, input);
    Object.assign(target, {
      ctx,
      account,
      configHome,
      workDir,
      flags: () => ['--url', ctx.baseUrl, '--email', account.email, '--key', account.apiKey],
      run: (args: string[], env?: Record<string, string>, input?: string) =>
        runBare([...target.flags(), ...args], env, input),
      runBare,
      file: (name: string, text: string) => {
        const file = path.join(workDir, name);
        writeFileSync(file, text);
        return file;
      },
    });
  });
  afterAll(async () => {
    await target.ctx?.close();
    rmSync(target.configHome, { recursive: true, force: true });
    rmSync(target.workDir, { recursive: true, force: true });
  });
  return target;
}

/** A local port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The lines of a JSONL text, parsed. */
export function jsonLines(text: string): any[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

/** True when stderr is one line and shows no stack trace. */
export function isOneLine(stderr: string): boolean {
  return stderr.trimEnd().split('\n').length === 1 && !/\n\s+at /.test(stderr) && !stderr.includes('.js:');
}
