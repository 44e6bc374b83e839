import { execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * Throwaway PostgreSQL clusters for the fault tests: a primary and streaming standbys of it, each
 * with its own port and data dir under one temp dir, run as the `postgres` user (initdb refuses
 * root). Needs root and PostgreSQL's server binaries.
 */
const BIN_ROOT = '/usr/lib/postgresql';

/** The newest installed server's bin dir, or undefined when none (or not root: the test skips). */
export function postgresBinaries(): string | undefined {
  if (process.getuid?.() !== 0 || !existsSync(BIN_ROOT)) return undefined;
  const versions = readdirSync(BIN_ROOT)
    .filter((version) => existsSync(path.join(BIN_ROOT, version, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(a) - Number(b));
  return versions.length > 0 ? path.join(BIN_ROOT, versions.at(-1)!, 'bin') : undefined;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Cluster {
  name: string;
  dataDir: string;
  port: number;
}

export class PostgresClusters {
  readonly root: string;
  private readonly running = new Set<Cluster>();

  constructor(private readonly bin: string) {
    this.root = mkdtempSync(path.join(os.tmpdir(), 'searchplane-pg-'));
    chownSync(this.root, postgresUid(), postgresGid());
  }

  /** Runs a PostgreSQL program as the postgres user; returns its stdout. */
  run(program: string, args: string[]): string {
    return execFileSync('runuser', ['-u', 'postgres', '--', path.join(this.bin, program), ...args], {
      cwd: this.root,
      encoding: 'utf8',
      env: { ...process.env, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  /** SQL through psql on `cluster` as the postgres superuser; returns unaligned, tuples-only output. */
  sql(cluster: Cluster, statement: string, database = 'postgres'): string {
    return this.run('psql', [
      '-X',
      '-q',
      '-A',
      '-t',
      '-v',
      'ON_ERROR_STOP=1',
      '-h',
      '127.0.0.1',
      '-p',
      String(cluster.port),
      '-U',
      'postgres',
      '-d',
      database,
      '-c',
      statement,
    ]).trim();
  }

  /** A new primary; `settings` are appended to its postgresql.conf. */
  async primary(name: string, settings: string[] = []): Promise<Cluster> {
    const cluster = { name, dataDir: path.join(this.root, name), port: await freePort() };
    this.run('initdb', ['-D', cluster.dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    appendFileSync(path.join(cluster.dataDir, 'postgresql.conf'), this.conf(cluster, settings));
    this.start(cluster);
    return cluster;
  }

  /** A streaming standby of `primary` made with pg_basebackup, connected as `application_name=name`. */
  async standby(primary: Cluster, name: string): Promise<Cluster> {
    const cluster = { name, dataDir: path.join(this.root, name), port: await freePort() };
    this.run('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primary.port),
      '-U',
      'postgres',
      '-D',
      cluster.dataDir,
      '-R',
      '-X',
      'stream',
      '--no-sync',
    ]);
    appendFileSync(
      path.join(cluster.dataDir, 'postgresql.auto.conf'),
      `${this.conf(cluster, [])}primary_conninfo = 'host=127.0.0.1 port=${primary.port} user=postgres application_name=${name}'\n`,
    );
    this.start(cluster);
    return cluster;
  }

  /** The postmaster's pid. */
  pid(cluster: Cluster): number {
    return Number(readFileSync(path.join(cluster.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  }

  /** kill -9 of the postmaster and its backends, as a crash of the machine's database would be. */
  crash(cluster: Cluster): void {
    const pid = this.pid(cluster);
    const children = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    for (const child of [pid, ...children.map(Number)]) {
      try {
        process.kill(Number(child), 'SIGKILL');
      } catch {
        // gone already
      }
    }
    this.running.delete(cluster);
  }

  promote(cluster: Cluster): void {
    this.run('pg_ctl', ['-D', cluster.dataDir, '-w', 'promote']);
  }

  /** Stops every cluster still running and removes their data. */
  cleanup(): void {
    for (const cluster of this.running) {
      try {
        this.run('pg_ctl', ['-D', cluster.dataDir, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already down
      }
    }
    this.running.clear();
    rmSync(this.root, { recursive: true, force: true });
  }

  private start(cluster: Cluster): void {
    this.run('pg_ctl', ['-D', cluster.dataDir, '-l', path.join(this.root, `${cluster.name}.log`), '-w', 'start']);
    this.running.add(cluster);
  }

  private conf(cluster: Cluster, settings: string[]): string {
    return [
      '',
      `port = ${cluster.port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${this.root}'`,
      'max_wal_senders = 10',
      'hot_standby = on',
      ...settings,
      '',
    ].join('\n');
  }
}

function postgresUid(): number {
  return Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
}

function postgresGid(): number {
  return Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
}
